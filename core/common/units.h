#pragma once
// Byte-unit helpers shared by the core and its front ends. llama.cpp prints MiB
// (1024 * 1024 bytes) with two decimals; we compare and display in the same unit.

#include <cstdint>

namespace llamafit {

inline constexpr std::uint64_t kKiB = 1024;
inline constexpr std::uint64_t kMiB = 1024 * kKiB;
inline constexpr std::uint64_t kGiB = 1024 * kMiB;

inline constexpr double toMiB(std::uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(kMiB);
}
inline constexpr double toGiB(std::uint64_t bytes) {
    return static_cast<double>(bytes) / static_cast<double>(kGiB);
}

inline constexpr std::uint64_t padTo(std::uint64_t value, std::uint64_t multiple) {
    return multiple == 0 ? value : (value + multiple - 1) / multiple * multiple;
}

} // namespace llamafit
