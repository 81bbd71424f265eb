#pragma once
// SeededDraw: portable random draws for the seeded holdouts (holdoutcases.h, fitholdoutcases.h).
// std::mt19937_64's output is fixed by the standard; std::uniform_int_distribution's is not (it
// differs between standard libraries, and the Windows build runs the same tests), so the
// distributions are written here. Test support only.

#include <cstdint>
#include <random>
#include <vector>

namespace llamafit::test {

class SeededDraw {
  public:
    explicit SeededDraw(std::uint64_t seed) : m_engine(seed) {}
    // Uniform in [low, high] (the modulo's bias is below 2^-40 for these ranges).
    std::uint32_t between(std::uint32_t low, std::uint32_t high) {
        return low + static_cast<std::uint32_t>(m_engine() % (static_cast<std::uint64_t>(high - low) + 1));
    }
    // True with probability percent / 100.
    bool chance(std::uint32_t percent) { return between(0, 99) < percent; }
    template <typename T> const T& pick(const std::vector<T>& values) {
        return values[between(0, static_cast<std::uint32_t>(values.size() - 1))];
    }

  private:
    std::mt19937_64 m_engine;
};

} // namespace llamafit::test
