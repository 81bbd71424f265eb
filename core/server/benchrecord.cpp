// Benchmark records as JSON; see benchrecord.h.
#include "core/server/benchrecord.h"

#include "core/machine/memorypools.h"

#include <nlohmann/json.hpp>

namespace llamafit {

using nlohmann::json;

namespace {

constexpr std::string_view kBenchFormat = "llamafit-benchmarks";

json rowJson(const BenchRow& row) {
    return {{"model_filename", row.modelFilename},
            {"model_type", row.modelType},
            {"model_size", row.modelSizeBytes},
            {"model_n_params", row.modelParameters},
            {"backends", row.backends},
            {"gpu_info", row.gpuInfo},
            {"cpu_info", row.cpuInfo},
            {"build_number", row.buildNumber},
            {"build_commit", row.buildCommit},
            {"n_gpu_layers", row.gpuLayers},
            {"flash_attn", row.flashAttention},
            {"type_k", row.typeK},
            {"type_v", row.typeV},
            {"n_batch", row.batchTokens},
            {"n_ubatch", row.ubatchTokens},
            {"n_threads", row.threads},
            {"n_prompt", row.promptTokens},
            {"n_gen", row.generatedTokens},
            {"n_depth", row.depth},
            {"test_time", row.testTime},
            {"avg_ns", row.averageNs},
            {"stddev_ns", row.stddevNs},
            {"avg_ts", row.averageTps},
            {"stddev_ts", row.stddevTps},
            {"samples_ts", row.samplesTps}};
}

json predictionJson(const BenchRowPrediction& prediction) {
    json item = {{"decode_tps_bound", prediction.decodeTpsBound},
                 {"decode_tps_expected", prediction.decodeTpsExpected},
                 {"prompt_tps_bound", prediction.promptTpsBound}};
    item["prompt_tps_expected"] =
        prediction.promptTpsExpected ? json(*prediction.promptTpsExpected) : json(nullptr);
    return item;
}

Error badBenchRecord(const std::string& what) {
    return makeError("bench.bad-record", "benchmark file: " + what);
}

} // namespace

std::string benchRecordsToJson(const std::vector<BenchRecord>& records) {
    json runs = json::array();
    for (const BenchRecord& record : records) {
        json rows = json::array();
        for (const BenchRow& row : record.rows) {
            rows.push_back(rowJson(row));
        }
        json predictions = json::array();
        for (const BenchRowPrediction& prediction : record.predictions) {
            predictions.push_back(predictionJson(prediction));
        }
        runs.push_back({{"machine", record.machineId},
                        {"model_path", record.modelPath},
                        {"model_file_bytes", record.modelFileBytes},
                        {"build_number", record.buildNumber},
                        {"build_commit", record.buildCommit},
                        {"backend", std::string(backendName(record.backend))},
                        {"moe", record.moe},
                        {"started_at", record.startedAt},
                        {"arguments", record.arguments},
                        {"efficiency_source", record.efficiencySource},
                        {"rows", std::move(rows)},
                        {"predictions", std::move(predictions)}});
    }
    const json document = {{"format", kBenchFormat}, {"version", 1}, {"runs", std::move(runs)}};
    return document.dump(2) + "\n";
}

Result<std::vector<BenchRecord>> benchRecordsFromJson(std::string_view text) {
    const json document = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded() || !document.is_object()) {
        return badBenchRecord("not a JSON object");
    }
    if (!document.contains("format") || !document.at("format").is_string() ||
        document.at("format").get<std::string>() != kBenchFormat) {
        return badBenchRecord("format is not \"llamafit-benchmarks\"");
    }
    if (!document.contains("runs") || !document["runs"].is_array()) {
        return badBenchRecord("no \"runs\" array");
    }
    std::vector<BenchRecord> records;
    try {
        for (const json& run : document["runs"]) {
            BenchRecord record;
            record.machineId = run.at("machine").get<std::string>();
            record.modelPath = run.at("model_path").get<std::string>();
            record.modelFileBytes = run.value("model_file_bytes", std::uint64_t{0});
            record.buildNumber = run.value("build_number", 0u);
            record.buildCommit = run.value("build_commit", "");
            record.backend = backendFromName(run.value("backend", "other")).value_or(Backend::Other);
            record.moe = run.value("moe", false);
            record.startedAt = run.value("started_at", "");
            record.arguments = run.value("arguments", std::vector<std::string>{});
            record.efficiencySource = run.value("efficiency_source", "");
            // The rows are llama-bench's own JSON objects: its parser reads them back.
            Result<std::vector<BenchRow>> rows = parseBenchJson(run.at("rows").dump());
            if (!rows) {
                return badBenchRecord(rows.error().message);
            }
            record.rows = std::move(*rows);
            for (const json& item : run.value("predictions", json::array())) {
                BenchRowPrediction prediction;
                prediction.decodeTpsBound = item.value("decode_tps_bound", 0.0);
                prediction.decodeTpsExpected = item.value("decode_tps_expected", 0.0);
                prediction.promptTpsBound = item.value("prompt_tps_bound", 0.0);
                if (item.contains("prompt_tps_expected") && item["prompt_tps_expected"].is_number()) {
                    prediction.promptTpsExpected = item["prompt_tps_expected"].get<double>();
                }
                record.predictions.push_back(prediction);
            }
            records.push_back(std::move(record));
        }
    } catch (const json::exception& error) {
        return badBenchRecord(error.what());
    }
    return records;
}

std::vector<EfficiencySample> efficiencySamples(const std::vector<BenchRecord>& records) {
    std::vector<EfficiencySample> samples;
    for (const BenchRecord& record : records) {
        for (std::size_t i = 0; i < record.rows.size() && i < record.predictions.size(); ++i) {
            const BenchRow& row = record.rows[i];
            const BenchRowPrediction& prediction = record.predictions[i];
            if (row.isGeneration()) {
                samples.push_back(
                    {record.backend, record.moe, false, row.averageTps, prediction.decodeTpsBound});
            } else if (row.isPrompt()) {
                samples.push_back(
                    {record.backend, record.moe, true, row.averageTps, prediction.promptTpsBound});
            }
        }
    }
    return samples;
}

} // namespace llamafit
