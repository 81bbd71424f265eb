// Predictions for llama-bench rows; see benchprediction.h.
#include "core/server/benchprediction.h"

#include <algorithm>

namespace llamafit {

ServerSettings benchEstimateSettings(const BenchRequest& request) {
    ServerSettings settings = request.settings;
    const std::uint32_t deepest =
        request.depths.empty() ? 0 : *std::max_element(request.depths.begin(), request.depths.end());
    settings.contextTokens = deepest + request.promptTokens + request.generatedTokens;
    settings.parallelSlots = 1;
    settings.kvUnified = false;
    return settings;
}

std::vector<BenchRowPrediction> predictBenchRows(const std::vector<BenchRow>& rows, const ModelInfo& model,
                                                 const MemoryEstimate& estimate,
                                                 std::uint64_t bandwidthBytesPerSecond,
                                                 std::optional<double> fp16Tflops,
                                                 const SpeedEfficiency& efficiency) {
    std::vector<BenchRowPrediction> predictions;
    for (const BenchRow& row : rows) {
        // tg: the cells read grow from the depth to depth + n_gen; the middle stands for them.
        const std::uint32_t filled =
            row.depth + (row.isGeneration() ? row.generatedTokens / 2 : row.promptTokens / 2);
        SpeedInputs inputs = speedInputs(model, estimate, bandwidthBytesPerSecond, fp16Tflops,
                                         row.ubatchTokens > 0 ? row.ubatchTokens : 512, filled);
        const SpeedPrediction prediction = predictSpeed(inputs, efficiency);
        BenchRowPrediction item;
        item.decodeTpsBound = prediction.decodeTpsBound;
        item.decodeTpsExpected = prediction.decodeTpsExpected;
        if (row.isPrompt()) {
            item.promptTpsExpected = prediction.promptTpsExpected;
            if (fp16Tflops && inputs.activeParameters > 0) {
                item.promptTpsBound =
                    *fp16Tflops * 1e12 / (2.0 * static_cast<double>(inputs.activeParameters));
            }
        }
        predictions.push_back(item);
    }
    return predictions;
}

BenchRowComparison compareBenchRow(const BenchRow& row, const BenchRowPrediction& prediction) {
    BenchRowComparison comparison;
    comparison.measuredTps = row.averageTps;
    comparison.stddevTps = row.stddevTps;
    comparison.boundTps = row.isGeneration() ? prediction.decodeTpsBound : prediction.promptTpsBound;
    comparison.expectedTps =
        row.isGeneration() ? prediction.decodeTpsExpected : prediction.promptTpsExpected.value_or(0);
    if (comparison.measuredTps > 0 && comparison.expectedTps > 0) {
        comparison.expectedError = (comparison.expectedTps - comparison.measuredTps) / comparison.measuredTps;
    }
    return comparison;
}

} // namespace llamafit
