#pragma once
// Small lookups over a MemoryEstimate for the sizing tests, and the tolerance llama.cpp's log
// implies: it prints MiB with two decimals, so an exact rule is within 0.005 MiB of the line.

#include "core/common/units.h"
#include "core/sizing/memoryestimate.h"

#include <cmath>
#include <string>

namespace llamafit::test {

inline constexpr double kLogRoundingMiB = 0.005;

inline const DeviceEstimate* findDevice(const MemoryEstimate& estimate, const std::string& name) {
    for (const auto& device : estimate.devices) {
        if (device.name == name) {
            return &device;
        }
    }
    return nullptr;
}

// Sum of the buffers of one type and component on one device (llama.cpp may log several lines).
inline std::uint64_t bufferBytes(const MemoryEstimate& estimate, const std::string& device,
                                 const std::string& bufferType, Component component) {
    const DeviceEstimate* found = findDevice(estimate, device);
    std::uint64_t total = 0;
    if (found != nullptr) {
        for (const auto& buffer : found->buffers) {
            if (buffer.bufferType == bufferType && buffer.component == component) {
                total += buffer.bytes;
            }
        }
    }
    return total;
}

inline double mib(std::uint64_t bytes) {
    return toMiB(bytes);
}

} // namespace llamafit::test
