#include "tests/support/matrixstatistics.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace llamafit::test {
namespace {

std::string format(const char* pattern, double value) {
    char text[64];
    std::snprintf(text, sizeof text, pattern, value);
    return text;
}

std::string describe(const ComparedBuffer& buffer) {
    return buffer.bufferType + " predicted " + format("%.2f", buffer.predictedMiB) + " MiB, logged " +
           format("%.2f", buffer.loggedMiB) + " MiB";
}

void tally(BufferTally& tally, const std::string& caseName, const ComparedBuffer& buffer, bool compute) {
    ++tally.total;
    tally.right += buffer.withinTolerance ? 1 : 0;
    if (compute) {
        tally.tight += buffer.withinRelative(kComputeTightFraction) ? 1 : 0;
    }
    // Compute by how far the ratio is from 1 either way (4x over is as far off as 4x under;
    // a zero on one side counts as infinitely far), the exact buffers by MiB.
    const double ratio = buffer.ratio();
    const double ratioDistance = ratio > 0 && std::isfinite(ratio) ? std::fabs(std::log(ratio))
                                                                   : std::numeric_limits<double>::infinity();
    const double distance = compute ? ratioDistance : std::fabs(buffer.predictedMiB - buffer.loggedMiB);
    if (distance > tally.worstDistance) {
        tally.worstDistance = distance;
        tally.worst = buffer;
        tally.worstCase = caseName;
    }
}

std::string share(std::uint32_t part, std::uint32_t total) {
    return std::to_string(part) + " of " + std::to_string(total) +
           (total == 0 ? "" : format(" (%.1f %%)", 100.0 * part / total));
}

std::string line(const BufferTally& tally, bool compute) {
    std::string text = tally.label + ": ";
    if (compute) {
        text += "within 2 % " + share(tally.tight, tally.total) + ", within 5 % " +
                share(tally.right, tally.total);
    } else {
        text += share(tally.right, tally.total);
    }
    if (tally.worst) {
        text += "; worst " + tally.worstCase + ": " + describe(*tally.worst) +
                (compute ? " (ratio " + format("%.3f", tally.worst->ratio()) + ")"
                         : format(" (off by %.2f MiB)", tally.worstDistance));
    }
    return text + "\n";
}

// "differs from llama-server:\n  compute Vulkan0: ...\n  ..." -> its first two lines as one.
std::string firstReason(const std::string& failure) {
    const auto first = failure.find('\n');
    if (first == std::string::npos) {
        return failure;
    }
    const auto start = failure.find_first_not_of(' ', first + 1);
    const auto second = failure.find('\n', first + 1);
    return failure.substr(0, first) + " " +
           (start == std::string::npos
                ? ""
                : failure.substr(start, second == std::string::npos ? second : second - start));
}

} // namespace

void MatrixStatistics::add(const std::string& caseName, const RunVerdict& verdict) {
    ++m_cases;
    if (verdict.passed) {
        ++m_passed;
    } else {
        m_failed.push_back(caseName + ": " + firstReason(verdict.failure));
    }
    for (const ComparedBuffer& buffer : verdict.buffers) {
        switch (buffer.component) {
        case Component::Model:
            tally(m_weights, caseName, buffer, false);
            break;
        case Component::Kv:
            tally(m_kv, caseName, buffer, false);
            break;
        case Component::Rs:
            tally(m_rs, caseName, buffer, false);
            break;
        case Component::Output:
            tally(m_output, caseName, buffer, false);
            break;
        case Component::Compute:
            tally(buffer.host ? m_hostCompute : m_deviceCompute, caseName, buffer, true);
            break;
        case Component::Overhead:
            break;
        }
    }
}

bool MatrixStatistics::meetsIssueTolerances() const {
    const auto tightEnough = [](const BufferTally& tally) {
        return tally.tight >= kComputeTightShare * tally.total;
    };
    return m_cases > 0 && m_passed == m_cases && tightEnough(m_deviceCompute) && tightEnough(m_hostCompute);
}

std::string MatrixStatistics::report() const {
    std::string text = "cases passed: " + share(m_passed, m_cases) + "\n";
    text += line(m_weights, false) + line(m_kv, false) + line(m_rs, false) + line(m_output, false) +
            line(m_deviceCompute, true) + line(m_hostCompute, true);
    text += std::string("issue 10 tolerances (every case passes; compute within 2 % in >= 95 %): ") +
            (meetsIssueTolerances() ? "met" : "NOT met") + "\n";
    if (!m_failed.empty()) {
        text += "cases not passing (first reason):\n";
        for (const std::string& failure : m_failed) {
            text += "  " + failure + "\n";
        }
    }
    return text;
}

} // namespace llamafit::test
