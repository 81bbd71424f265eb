#pragma once
// llama-bench (llama.cpp tools/llama-bench, shipped next to llama-server) as LlamaFit runs it:
// the argv for a planned launch's settings, and the rows of its `-o json` output. Used by
// core/system/benchmarkrun (the process), `llamafit-cli bench` and the GUI's benchmark dialog.
// Pure. Rates in tokens per second, times in nanoseconds as llama-bench prints them.
//
// Error codes: bench.bad-request (nothing to run: no model, no depths, zero tokens),
// bench.unsupported-setting (a setting llama-bench cannot express, naming it),
// bench.bad-json (not llama-bench's JSON: names what is missing).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct BenchRequest {
    std::string modelPath;
    ServerSettings settings; // -ngl, -fa, -ctk/-ctv, -b, -ub, -nkvo, -ncmoe, -lm, --repack, -ot, -ts
    std::optional<std::uint32_t> threads; // -t; nullopt = llama-bench's default (all cores)
    std::vector<std::uint32_t> depths{0}; // -d: KV cells filled before each test
    std::uint32_t promptTokens = 512;     // -p (0 = no prompt test)
    std::uint32_t generatedTokens = 128;  // -n (0 = no generation test)
    std::uint32_t repetitions = 3;        // -r
    bool warmup = true;                   // false: --no-warmup
    bool operator==(const BenchRequest&) const = default;
};

// The arguments after the executable: -m, the tests, the settings, `-o json --progress` (the
// progress lines go to stderr, benchProgressFromLine reads them).
Result<std::vector<std::string>> buildBenchArgs(const BenchRequest& request);

// "0,4096,32768": the KV depths to test at (0 allowed), as the CLI's --depths and the GUI's
// depth field take them. cli.bad-value (flag --depths) names the text when a word is not a
// token count.
Result<std::vector<std::uint32_t>> parseBenchDepths(std::string_view text);

// Tests llama-bench will run for a request: (prompt? + generation?) x depths.
std::uint32_t benchTestCount(const BenchRequest& request);

// One test of llama-bench's JSON array (tools/llama-bench/llama-bench.cpp test::get_fields).
struct BenchRow {
    std::string modelFilename;
    std::string modelType; // "llama ?B all F32"
    std::uint64_t modelSizeBytes = 0;
    std::uint64_t modelParameters = 0;
    std::string backends; // "CPU", "Vulkan", ...
    std::string gpuInfo;
    std::string cpuInfo;
    std::uint32_t buildNumber = 0;
    std::string buildCommit;
    std::int32_t gpuLayers = -1;
    std::int32_t flashAttention = -1; // -1 auto, 0 off, 1 on
    std::string typeK;
    std::string typeV;
    std::uint32_t batchTokens = 0;
    std::uint32_t ubatchTokens = 0;
    std::uint32_t threads = 0;
    std::uint32_t promptTokens = 0;    // n_prompt: > 0 for a prompt-processing test
    std::uint32_t generatedTokens = 0; // n_gen: > 0 for a generation test
    std::uint32_t depth = 0;           // n_depth
    std::string testTime;
    double averageNs = 0;
    double stddevNs = 0;
    double averageTps = 0;
    double stddevTps = 0;
    std::vector<double> samplesTps;
    bool isGeneration() const { return generatedTokens > 0 && promptTokens == 0; }
    bool isPrompt() const { return promptTokens > 0 && generatedTokens == 0; }
    // "pp512", "tg128", "pp512 @ d4096" as llama-bench's markdown names tests.
    std::string testName() const;
    bool operator==(const BenchRow&) const = default;
};

Result<std::vector<BenchRow>> parseBenchJson(std::string_view text);

// A `--progress` line on stderr: "llama-bench: benchmark 3/4: starting".
struct BenchProgress {
    std::uint32_t test = 0; // 1-based
    std::uint32_t total = 0;
    std::string stage; // "starting", "prompt run 1/3", ...
    bool operator==(const BenchProgress&) const = default;
};
std::optional<BenchProgress> benchProgressFromLine(std::string_view line);

} // namespace llamafit
