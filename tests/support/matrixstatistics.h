#pragma once
// MatrixStatistics: the figures issue 10's closing note asks for, over a whole integration
// matrix (live or recorded): weight buffers right out of N; KV, RS and output buffers exact out
// of N; device and host compute buffers within 2 % and within 5 % out of N; the worst case of
// each, by case and buffer; cases passed. Fed one judged case at a time (judgeServerRun's
// verdict), read as text. Used by the recorded matrix's statistics test and the
// llamafit-matrix-stats tool (scripts/record-server-runs.sh prints it). Test support only; MiB.

#include "tests/support/servercomparison.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace llamafit::test {

// The issue's bar for compute buffers: within 2 % in at least 95 % of cases, within 5 % in all.
inline constexpr double kComputeTightFraction = 0.02;
inline constexpr double kComputeLooseFraction = 0.05;
inline constexpr double kComputeTightShare = 0.95;

struct BufferTally {
    explicit BufferTally(std::string name) : label(std::move(name)) {}
    std::string label;       // "weight buffers right", "device compute", ...
    std::uint32_t total = 0; // buffers compared
    std::uint32_t right = 0; // within the comparison's tolerance (print precision / 5 %)
    std::uint32_t tight = 0; // compute only: within 2 %
    // The one furthest off: by MiB for exact buffers, by ratio for compute.
    std::string worstCase;
    std::optional<ComparedBuffer> worst;
    double worstDistance = -1;
};

class MatrixStatistics {
  public:
    void add(const std::string& caseName, const RunVerdict& verdict);

    std::uint32_t cases() const { return m_cases; }
    std::uint32_t passed() const { return m_passed; }
    const BufferTally& weights() const { return m_weights; }
    const BufferTally& kv() const { return m_kv; }
    const BufferTally& rs() const { return m_rs; }
    const BufferTally& output() const { return m_output; }
    const BufferTally& deviceCompute() const { return m_deviceCompute; }
    const BufferTally& hostCompute() const { return m_hostCompute; }

    // Every case passed (buffers exact, compute within 5 %, refusals and failures agreeing)
    // and device and host compute each within 2 % in at least 95 % of their buffers.
    bool meetsIssueTolerances() const;
    // One line per figure, then the cases that did not pass with their first reason.
    std::string report() const;

  private:
    std::uint32_t m_cases = 0;
    std::uint32_t m_passed = 0;
    std::vector<std::string> m_failed; // "<case>: <first line of the failure>"
    BufferTally m_weights{"weight buffers right"};
    BufferTally m_kv{"KV buffers exact"};
    BufferTally m_rs{"RS buffers exact"};
    BufferTally m_output{"output buffers exact"};
    BufferTally m_deviceCompute{"device compute"};
    BufferTally m_hostCompute{"host compute"};
};

} // namespace llamafit::test
