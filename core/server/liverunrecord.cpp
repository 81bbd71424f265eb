// Live runs as learning samples, and their file; see liverunrecord.h.
#include "core/server/liverunrecord.h"

#include "core/machine/memorypools.h"

#include <nlohmann/json.hpp>

namespace llamafit {

using nlohmann::json;

namespace {

constexpr std::string_view kLiveRunFormat = "llamafit-live-runs";

Error badLiveRunRecord(const std::string& what) {
    return makeError("bench.bad-record", "live-run file: " + what);
}

// llama-server's generation seconds behind `totals`: the counters give tokens and their average
// rate (tokens_predicted_total / tokens_predicted_seconds_total, prometheusmetrics.h).
double generationSeconds(const RunTotals& totals) {
    return totals.generationTokensPerSecond && *totals.generationTokensPerSecond > 0
               ? static_cast<double>(totals.generatedTokens) / *totals.generationTokensPerSecond
               : 0.0;
}

} // namespace

LiveRunTally tallyLiveRun(LiveRunTally tally, const RunTotals& totals,
                          const std::optional<LiveSpeed>& speed) {
    const double seconds = generationSeconds(totals);
    if (totals.generatedTokens <= tally.seenTokens || seconds <= tally.seenSeconds) {
        // Nothing finished since the previous sample (or the server restarted its counters:
        // start counting from here).
        if (totals.generatedTokens < tally.seenTokens) {
            tally.seenTokens = totals.generatedTokens;
            tally.seenSeconds = seconds;
        }
        return tally;
    }
    const std::uint64_t tokens = totals.generatedTokens - tally.seenTokens;
    const double spent = seconds - tally.seenSeconds;
    tally.seenTokens = totals.generatedTokens;
    tally.seenSeconds = seconds;
    if (!speed || !speed->machineBytesPerSecond || *speed->machineBytesPerSecond == 0 ||
        speed->bytesPerToken == 0) {
        return tally;
    }
    // One decode step reads bytesPerToken and gives each decoding slot one token, so the bound's
    // per-slot rate is bandwidth / bytesPerToken (livespeed.h), as llama-server's per-request time.
    const double boundTps =
        static_cast<double>(*speed->machineBytesPerSecond) / static_cast<double>(speed->bytesPerToken);
    tally.generatedTokens += tokens;
    tally.generationSeconds += spent;
    tally.boundSeconds += static_cast<double>(tokens) / boundTps;
    return tally;
}

std::optional<LiveRunRecord> finishLiveRun(const LiveRunTally& tally, LiveRunRecord run) {
    if (tally.generatedTokens < kMinLearnedLiveTokens || tally.generationSeconds <= 0 ||
        tally.boundSeconds <= 0) {
        return std::nullopt;
    }
    run.generatedTokens = tally.generatedTokens;
    run.decodeTps = static_cast<double>(tally.generatedTokens) / tally.generationSeconds;
    run.boundTps = static_cast<double>(tally.generatedTokens) / tally.boundSeconds;
    return run;
}

std::string liveRunsToJson(const std::vector<LiveRunRecord>& records) {
    json runs = json::array();
    for (const LiveRunRecord& record : records) {
        runs.push_back({{"machine", record.machineId},
                        {"model_path", record.modelPath},
                        {"model_file_bytes", record.modelFileBytes},
                        {"backend", std::string(backendName(record.backend))},
                        {"moe", record.moe},
                        {"started_at", record.startedAt},
                        {"ended_at", record.endedAt},
                        {"generated_tokens", record.generatedTokens},
                        {"decode_tps", record.decodeTps},
                        {"decode_tps_bound", record.boundTps},
                        {"efficiency_source", record.efficiencySource}});
    }
    const json document = {{"format", kLiveRunFormat}, {"version", 1}, {"runs", std::move(runs)}};
    return document.dump(2) + "\n";
}

Result<std::vector<LiveRunRecord>> liveRunsFromJson(std::string_view text) {
    const json document = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded() || !document.is_object()) {
        return badLiveRunRecord("not a JSON object");
    }
    if (!document.contains("format") || !document.at("format").is_string() ||
        document.at("format").get<std::string>() != kLiveRunFormat) {
        return badLiveRunRecord("format is not \"llamafit-live-runs\"");
    }
    if (!document.contains("runs") || !document["runs"].is_array()) {
        return badLiveRunRecord("no \"runs\" array");
    }
    std::vector<LiveRunRecord> records;
    try {
        for (const json& run : document["runs"]) {
            LiveRunRecord record;
            record.machineId = run.at("machine").get<std::string>();
            record.modelPath = run.at("model_path").get<std::string>();
            record.modelFileBytes = run.value("model_file_bytes", std::uint64_t{0});
            record.backend = backendFromName(run.value("backend", "other")).value_or(Backend::Other);
            record.moe = run.value("moe", false);
            record.startedAt = run.value("started_at", "");
            record.endedAt = run.value("ended_at", "");
            record.generatedTokens = run.at("generated_tokens").get<std::uint64_t>();
            record.decodeTps = run.at("decode_tps").get<double>();
            record.boundTps = run.at("decode_tps_bound").get<double>();
            record.efficiencySource = run.value("efficiency_source", "");
            records.push_back(std::move(record));
        }
    } catch (const json::exception& error) {
        return badLiveRunRecord(error.what());
    }
    return records;
}

std::vector<EfficiencySample> efficiencySamples(const std::vector<LiveRunRecord>& records) {
    std::vector<EfficiencySample> samples;
    samples.reserve(records.size());
    for (const LiveRunRecord& record : records) {
        EfficiencySample sample{record.backend, record.moe, false, record.decodeTps, record.boundTps};
        sample.live = true;
        samples.push_back(sample);
    }
    return samples;
}

} // namespace llamafit
