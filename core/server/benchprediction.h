#pragma once
// The speed model's figures for each row of a llama-bench run: the decode bound and expected
// rate of a tg row at its depth (KV filled to the depth plus half the generated tokens), the
// expected and compute-bound rate of a pp row. Stored with the run (benchrecord.h) and drawn
// next to the measured rates. Pure.

#include "core/machine/speedmodel.h"
#include "core/server/benchrecord.h"

#include <optional>
#include <vector>

namespace llamafit {

// The settings to size the bench's context with: llama-bench makes one sequence of
// n_prompt + n_gen + n_depth cells (tools/llama-bench/llama-bench.cpp: cparams.n_ctx), the
// largest over the request's depths.
ServerSettings benchEstimateSettings(const BenchRequest& request);

std::vector<BenchRowPrediction> predictBenchRows(const std::vector<BenchRow>& rows, const ModelInfo& model,
                                                 const MemoryEstimate& estimate,
                                                 std::uint64_t bandwidthBytesPerSecond,
                                                 std::optional<double> fp16Tflops,
                                                 const SpeedEfficiency& efficiency);

// A row's measured rate next to the speed model's figures of its kind: for a tg row the decode
// bound and expected rate, for a pp row the compute bound and expected prompt rate (0 = not
// known). expectedError = (expected - measured) / measured, nullopt when either is unknown.
struct BenchRowComparison {
    double measuredTps = 0;
    double stddevTps = 0;
    double boundTps = 0;
    double expectedTps = 0;
    std::optional<double> expectedError;
};
BenchRowComparison compareBenchRow(const BenchRow& row, const BenchRowPrediction& prediction);

} // namespace llamafit
