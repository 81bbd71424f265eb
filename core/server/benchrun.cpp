// llama-bench's argv and JSON output; see benchrun.h. The flags are llama-bench's own
// (llama.cpp tools/llama-bench/llama-bench.cpp print_usage / parse_cmd_params), which differ
// from llama-server's in places (-fa on|off|auto, -nkvo 0|1, -ts a/b, --repack 0|1).
#include "core/server/benchrun.h"

#include "core/flags/flagvalues.h"
#include "core/gguf/ggmltype.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

namespace llamafit {

using nlohmann::json;

namespace {

std::string joined(const std::vector<std::uint32_t>& values) {
    std::string text;
    for (std::uint32_t value : values) {
        text += (text.empty() ? "" : ",") + std::to_string(value);
    }
    return text;
}

Error unsupported(Setting setting, std::string flag, std::string message) {
    Error error{"bench.unsupported-setting", std::move(message), {setting}, std::move(flag)};
    return error;
}

} // namespace

Result<std::vector<std::uint32_t>> parseBenchDepths(std::string_view text) {
    std::vector<std::uint32_t> depths;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        std::string_view word = text.substr(start, comma - start);
        while (!word.empty() && word.front() == ' ') {
            word.remove_prefix(1);
        }
        while (!word.empty() && word.back() == ' ') {
            word.remove_suffix(1);
        }
        std::uint32_t value = 0;
        const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), value);
        if (word.empty() || ec != std::errc() || end != word.data() + word.size()) {
            Error error = makeError("cli.bad-value", "bad value '" + std::string(text) +
                                                         "' for --depths: expected token counts (0 or more) "
                                                         "separated by commas");
            error.flag = "--depths";
            return error;
        }
        depths.push_back(value);
        start = comma + 1;
    }
    return depths;
}

std::uint32_t benchTestCount(const BenchRequest& request) {
    const std::uint32_t perDepth =
        (request.promptTokens > 0 ? 1u : 0u) + (request.generatedTokens > 0 ? 1u : 0u);
    return perDepth * static_cast<std::uint32_t>(request.depths.size());
}

Result<std::vector<std::string>> buildBenchArgs(const BenchRequest& request) {
    if (request.modelPath.empty()) {
        return makeError("bench.bad-request", "no model file to benchmark");
    }
    if (request.depths.empty() || benchTestCount(request) == 0 || request.repetitions == 0) {
        return makeError("bench.bad-request",
                         "nothing to run: give at least one depth, a prompt or generation length above 0 and "
                         "at least one repetition");
    }
    const ServerSettings& settings = request.settings;
    // llama-bench has no --cpu-moe, no --rpc and no --swa-full (llama-bench.cpp cmd_params).
    if (settings.cpuMoe) {
        return unsupported(Setting::CpuMoe, "-cmoe", "llama-bench has no --cpu-moe; use -ncmoe N");
    }
    if (!settings.rpcServers.empty()) {
        return unsupported(Setting::RpcServers, "--rpc", "this llama-bench build cannot use RPC servers");
    }
    std::vector<std::string> args = {"-m", request.modelPath};
    args.insert(args.end(),
                {"-p", std::to_string(request.promptTokens), "-n", std::to_string(request.generatedTokens),
                 "-d", joined(request.depths), "-r", std::to_string(request.repetitions)});
    if (settings.gpuLayers && settings.gpuLayers->kind() != GpuLayers::Kind::Auto) {
        // llama-bench takes numbers only: 999 is more layers than any model has (every layer).
        args.insert(args.end(),
                    {"-ngl", settings.gpuLayers->isCount() ? std::to_string(settings.gpuLayers->layerCount())
                                                           : std::string("999")});
    }
    args.insert(args.end(), {"-fa", std::string(flashAttentionName(settings.flashAttention))});
    args.insert(args.end(), {"-ctk", std::string(ggmlTypeName(settings.cacheTypeK)), "-ctv",
                             std::string(ggmlTypeName(settings.cacheTypeV))});
    args.insert(args.end(),
                {"-b", std::to_string(settings.batchTokens), "-ub", std::to_string(settings.ubatchTokens)});
    if (request.threads) {
        args.insert(args.end(), {"-t", std::to_string(*request.threads)});
    }
    if (!settings.kvOffload) {
        args.insert(args.end(), {"-nkvo", "1"});
    }
    if (settings.cpuMoeLayers > 0) {
        args.insert(args.end(), {"-ncmoe", std::to_string(settings.cpuMoeLayers)});
    }
    if (settings.loadMode != LoadMode::Auto) {
        args.insert(args.end(), {"-lm", settings.loadMode == LoadMode::None ? "none" : "mmap"});
    }
    if (!settings.repack) {
        args.insert(args.end(), {"--repack", "0"});
    }
    if (!settings.tensorSplit.empty()) {
        std::string split;
        for (double share : settings.tensorSplit) {
            char text[32];
            const auto [end, ec] = std::to_chars(text, text + sizeof text, share);
            split += (split.empty() ? "" : "/") + std::string(text, ec == std::errc() ? end : text);
        }
        args.insert(args.end(), {"-ts", split});
    }
    if (!settings.tensorOverrides.empty()) {
        std::string overrides;
        for (const TensorOverride& item : settings.tensorOverrides) {
            overrides += (overrides.empty() ? "" : ";") + item.pattern + "=" + item.bufferType;
        }
        args.insert(args.end(), {"-ot", overrides});
    }
    if (!request.warmup) {
        args.push_back("--no-warmup");
    }
    args.insert(args.end(), {"-o", "json", "--progress"});
    return args;
}

std::string BenchRow::testName() const {
    std::string name;
    if (promptTokens > 0) {
        name = "pp" + std::to_string(promptTokens);
    }
    if (generatedTokens > 0) {
        name += (name.empty() ? "tg" : "+tg") + std::to_string(generatedTokens);
    }
    if (depth > 0) {
        name += " @ d" + std::to_string(depth);
    }
    return name;
}

Result<std::vector<BenchRow>> parseBenchJson(std::string_view text) {
    const json document = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (document.is_discarded() || !document.is_array()) {
        return makeError("bench.bad-json",
                         "llama-bench's output is not a JSON array (was it run with -o json?)");
    }
    std::vector<BenchRow> rows;
    for (const json& item : document) {
        if (!item.is_object()) {
            return makeError("bench.bad-json", "an element of llama-bench's array is not an object");
        }
        for (const char* key : {"n_prompt", "n_gen", "avg_ts", "avg_ns"}) {
            if (!item.contains(key) || !item[key].is_number()) {
                return makeError("bench.bad-json", "test " + std::to_string(rows.size() + 1) +
                                                       " has no number \"" + key + "\"");
            }
        }
        BenchRow row;
        // A field of another type than llama-bench prints (another build, a damaged file) is
        // named, not thrown: nlohmann's value() throws type_error on a mismatch.
        try {
            row.modelFilename = item.value("model_filename", "");
            row.modelType = item.value("model_type", "");
            row.modelSizeBytes = item.value("model_size", std::uint64_t{0});
            row.modelParameters = item.value("model_n_params", std::uint64_t{0});
            row.backends = item.value("backends", "");
            row.gpuInfo = item.value("gpu_info", "");
            row.cpuInfo = item.value("cpu_info", "");
            row.buildNumber = item.value("build_number", 0u);
            row.buildCommit = item.value("build_commit", "");
            row.gpuLayers = item.value("n_gpu_layers", -1);
            row.flashAttention = item.contains("flash_attn") && item["flash_attn"].is_boolean()
                                     ? (item["flash_attn"].get<bool>() ? 1 : 0)
                                     : item.value("flash_attn", -1);
            row.typeK = item.value("type_k", "");
            row.typeV = item.value("type_v", "");
            row.batchTokens = item.value("n_batch", 0u);
            row.ubatchTokens = item.value("n_ubatch", 0u);
            row.threads = item.value("n_threads", 0u);
            row.promptTokens = item.value("n_prompt", 0u);
            row.generatedTokens = item.value("n_gen", 0u);
            row.depth = item.value("n_depth", 0u);
            row.testTime = item.value("test_time", "");
            row.averageNs = item.value("avg_ns", 0.0);
            row.stddevNs = item.value("stddev_ns", 0.0);
            row.averageTps = item.value("avg_ts", 0.0);
            row.stddevTps = item.value("stddev_ts", 0.0);
        } catch (const json::exception& error) {
            return makeError("bench.bad-json", "test " + std::to_string(rows.size() + 1) +
                                                   ": a field has an unexpected type (" + error.what() + ")");
        }
        if (item.contains("samples_ts") && item["samples_ts"].is_array()) {
            for (const json& sample : item["samples_ts"]) {
                if (sample.is_number()) {
                    row.samplesTps.push_back(sample.get<double>());
                }
            }
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::optional<BenchProgress> benchProgressFromLine(std::string_view line) {
    constexpr std::string_view prefix = "llama-bench: benchmark ";
    const std::size_t start = line.find(prefix);
    if (start == std::string_view::npos) {
        return std::nullopt;
    }
    std::string_view rest = line.substr(start + prefix.size());
    BenchProgress progress;
    const char* end = rest.data() + rest.size();
    auto [afterTest, ec1] = std::from_chars(rest.data(), end, progress.test);
    if (ec1 != std::errc() || afterTest == end || *afterTest != '/') {
        return std::nullopt;
    }
    auto [afterTotal, ec2] = std::from_chars(afterTest + 1, end, progress.total);
    if (ec2 != std::errc() || progress.test == 0 || progress.total == 0 || progress.test > progress.total) {
        return std::nullopt;
    }
    std::string_view stage(afterTotal, static_cast<std::size_t>(end - afterTotal));
    if (stage.substr(0, 2) == ": ") {
        stage.remove_prefix(2);
    }
    while (!stage.empty() && (stage.back() == '\n' || stage.back() == '\r')) {
        stage.remove_suffix(1);
    }
    progress.stage = std::string(stage);
    return progress;
}

} // namespace llamafit
