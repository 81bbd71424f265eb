// Default and learned kernel efficiencies; see speedefficiency.h. The defaults come from the
// public measurements of docs/speed.md (each row there names its source).
#include "core/machine/speedefficiency.h"

#include <algorithm>

namespace llamafit {

namespace {

// Decode: measured tg / (bandwidth / bytes read per token), dense models (docs/speed.md).
//   Vulkan 0.72 (RX 6800 XT 13B Q6_K: 0.70), CUDA 0.76 (RTX 3080 0.68, RTX 2080 0.79,
//   RTX 4060 Laptop 0.91), Metal 0.48 (M2 Ultra 7B Q4_0 0.42, Q8_0 0.55), ROCm 0.62 (RX 6700 XT
//   7B Q4_0), CPU 0.6 (no public row yet: llama.cpp's CPU matmul reaches about this on DDR5).
// MoE: the seed's Qwen3.5-35B-A3B Q6_K on a Radeon 8060S (Vulkan) reaches 0.55 of the bound;
//   the other backends' MoE figures scale their dense figure by the same 0.55 / 0.72 (no public
//   row: routed experts are many small matmuls, and the router and top-k add work per token).
constexpr double kMoeScale = 0.55 / 0.72;

struct BackendDefaults {
    double denseDecode;
    double prompt; // of the FP16 peak, at pp512
    const char* basis;
};

BackendDefaults backendDefaults(Backend backend) {
    switch (backend) {
    case Backend::Cuda:
        return {0.76, 0.35, "CUDA"};
    case Backend::Metal:
        return {0.48, 0.55, "Metal"};
    case Backend::Rocm:
        return {0.62, 0.30, "ROCm"};
    case Backend::Cpu:
        return {0.60, 0.30, "CPU (no public row; an assumed figure)"};
    case Backend::Rpc:
        return {0.60, 0.30, "RPC (taken as CPU)"};
    case Backend::Vulkan:
        return {0.72, 0.25, "Vulkan"};
    case Backend::Other:
        break;
    }
    return {0.72, 0.25, "an unknown backend (taken as Vulkan)"};
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t mid = values.size() / 2;
    return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

} // namespace

std::string_view speedSourceName(SpeedSource source) {
    switch (source) {
    case SpeedSource::Benchmarks:
        return "benchmarks";
    case SpeedSource::LiveRuns:
        return "live-runs";
    case SpeedSource::BenchmarksAndLiveRuns:
        return "benchmarks+live-runs";
    case SpeedSource::PublicDefaults:
        break;
    }
    return "public-defaults";
}

SpeedEfficiency defaultSpeedEfficiency(Backend backend, bool moe) {
    const BackendDefaults defaults = backendDefaults(backend);
    SpeedEfficiency efficiency;
    efficiency.decode = moe ? defaults.denseDecode * kMoeScale : defaults.denseDecode;
    efficiency.prompt = defaults.prompt;
    efficiency.source = SpeedSource::PublicDefaults;
    efficiency.backend = backend;
    efficiency.moe = moe;
    efficiency.description = std::string("public defaults for ") + defaults.basis +
                             (moe ? ", MoE" : ", dense") + " (docs/speed.md)";
    return efficiency;
}

SpeedEfficiency learnSpeedEfficiency(Backend backend, bool moe,
                                     const std::vector<EfficiencySample>& samples) {
    SpeedEfficiency efficiency = defaultSpeedEfficiency(backend, moe);
    std::vector<double> decodeRatios;
    std::vector<double> promptRatios;
    std::size_t benchRows = 0;
    std::size_t liveRuns = 0;
    for (const EfficiencySample& sample : samples) {
        if (sample.backend != backend || sample.moe != moe || sample.boundTps <= 0 ||
            sample.measuredTps <= 0) {
            continue;
        }
        const double ratio = std::min(sample.measuredTps / sample.boundTps, 1.5);
        (sample.prompt ? promptRatios : decodeRatios).push_back(ratio);
        ++(sample.live ? liveRuns : benchRows);
    }
    if (decodeRatios.empty() && promptRatios.empty()) {
        return efficiency;
    }
    if (!decodeRatios.empty()) {
        efficiency.decode = median(decodeRatios);
    }
    if (!promptRatios.empty()) {
        efficiency.prompt = median(promptRatios);
    }
    efficiency.source = liveRuns == 0    ? SpeedSource::Benchmarks
                        : benchRows == 0 ? SpeedSource::LiveRuns
                                         : SpeedSource::BenchmarksAndLiveRuns;
    efficiency.sampleCount = benchRows + liveRuns;
    efficiency.benchmarkRows = benchRows;
    efficiency.liveRuns = liveRuns;
    efficiency.decodeIsDefault = decodeRatios.empty();
    efficiency.promptIsDefault = promptRatios.empty();
    const std::string rows = std::to_string(benchRows) + " llama-bench row(s)";
    const std::string runs = std::to_string(liveRuns) + " live run(s)";
    efficiency.description = "learned from " +
                             (liveRuns == 0    ? rows
                              : benchRows == 0 ? runs
                                               : rows + " and " + runs) +
                             " on this machine" + (decodeRatios.empty() ? " (decode: public default)" : "") +
                             (promptRatios.empty() ? " (prompt: public default)" : "");
    return efficiency;
}

} // namespace llamafit
