// Benchmarks of the sizing core: one estimate (from the ModelInfo, and from the prepared
// SizingModel), a 64-context x 9-K/V-type sweep, and the
// header parse of a realistic 700+-tensor sparse file. Targets (issue #2): estimate <= 10 us,
// sweep <= 2 ms, parse <= 5 ms. Inputs are the built-in Qwen3.5-35B-A3B card (the app's
// default model), which is also written as a sparse GGUF with its full 248k-token vocabulary.

#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"
#include "core/system/heaptuning.h"
#include "tests/support/modelfiles.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace llamafit {
namespace {

// As the app and the CLI start (heaptuning.h), so the benchmarks time what users get.
[[maybe_unused]] const bool kHeapKept = (keepFreedHeapForReuse(), true);

ModelInfo cardModel(std::string_view id) {
    auto card = findBuiltinModelCard(id);
    if (!card) {
        throw std::runtime_error(card.error().message);
    }
    auto model = interpretModel(card->file);
    if (!model) {
        throw std::runtime_error(model.error().message);
    }
    return *model;
}

ModelInfo defaultCardModel() {
    return cardModel(defaultModelCardId());
}

// The devices the sweeps size for: the CPU alone, one 8 GiB Vulkan GPU with every layer, the same
// GPU with 20 layers (partial offload), and two RPC servers splitting the layers.
std::vector<GpuDevice> sweepDevices(std::int64_t which) {
    switch (which) {
    case 1:
    case 2:
        return {{"Vulkan0", 8ull << 30, Backend::Vulkan, false, std::nullopt, {}}};
    case 3:
        return {rpcDevice("127.0.0.1:50052", 8ull << 30), rpcDevice("127.0.0.1:50053", 8ull << 30)};
    default:
        return {};
    }
}

ServerSettings sweepSettings(std::int64_t which) {
    ServerSettings settings;
    if (which == 2) {
        settings.gpuLayers = GpuLayers::count(20);
    }
    if (which == 3) {
        settings.rpcServers = {"127.0.0.1:50052", "127.0.0.1:50053"};
    }
    return settings;
}

// Estimates of `model` (a ModelInfo or a prepared SizingModel) on one of the sweeps' devices with
// q8_0 caches, the context moving on every call (32k to 96k), so each one reads the compiled plan
// at cells it has not been asked for.
template <typename Model> void estimateAtMovingContexts(benchmark::State& state, const Model& model) {
    const std::vector<GpuDevice> gpus = sweepDevices(state.range(0));
    ServerSettings settings = sweepSettings(state.range(0));
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    if (auto first = estimateMemory(model, settings, gpus); !first) {
        state.SkipWithError(first.error().message.c_str());
        return;
    }
    std::uint32_t step = 0;
    for (auto _ : state) {
        settings.contextTokens = 32768 + 256 * (step++ % 256);
        auto estimate = estimateMemory(model, settings, gpus);
        benchmark::DoNotOptimize(estimate);
    }
}

// An estimate from a plain ModelInfo, as the CLI, the fit replica and the failure fixes ask for
// one: it finds the process's prepared model of an equal ModelInfo (preparedmodels.h), comparing
// the whole tensor list, and estimates from it.
void BM_Estimate(benchmark::State& state) {
    estimateAtMovingContexts(state, defaultCardModel());
}
BENCHMARK(BM_Estimate)->Arg(0)->Arg(1)->Arg(2)->Arg(3);

// The same estimate worked out from scratch (estimateMemoryUnprepared): what the first estimate
// of a model costs the CLI, with every weight placed tensor by tensor and the plan compiled.
void BM_EstimateUnprepared(benchmark::State& state) {
    const ModelInfo model = defaultCardModel();
    const std::vector<GpuDevice> gpus = sweepDevices(state.range(0));
    ServerSettings settings = sweepSettings(state.range(0));
    settings.contextTokens = 65536;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    for (auto _ : state) {
        auto estimate = estimateMemoryUnprepared(model, settings, gpus);
        benchmark::DoNotOptimize(estimate);
    }
}
BENCHMARK(BM_EstimateUnprepared)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

// An estimate the sizing engine answers (core/sizing/computeengine.h: llama.cpp's graph,
// scheduler and allocator over the built-in Llama-3-8B card), on the CPU and on one Vulkan GPU.
void BM_EstimateEngine(benchmark::State& state) {
    const SizingModel model = prepareModel(cardModel("llama-3-8b-q4_k_m"));
    ServerSettings settings;
    settings.contextTokens = 32768;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    std::vector<GpuDevice> gpus;
    if (state.range(0) == 1) {
        gpus.push_back({"Vulkan0", 8ull << 30, Backend::Vulkan, false, std::nullopt, {}});
    }
    for (auto _ : state) {
        auto estimate = estimateMemory(model, settings, gpus);
        benchmark::DoNotOptimize(estimate);
    }
}
BENCHMARK(BM_EstimateEngine)->Arg(0)->Arg(1);

// The same estimate from the prepared model, as the GUI's sliders recompute it.
void BM_EstimatePrepared(benchmark::State& state) {
    estimateAtMovingContexts(state, prepareModel(defaultCardModel()));
}
BENCHMARK(BM_EstimatePrepared)->Arg(0)->Arg(1)->Arg(2)->Arg(3);

// One sweep of the GUI's context chart: 64 contexts x 9 K/V types (same type for K and V).
std::uint64_t sweep(const SizingModel& model, std::int64_t devices) {
    const std::vector<GpuDevice> gpus = sweepDevices(devices);
    std::uint64_t sum = 0;
    for (GgmlType type : allowedCacheTypes()) {
        for (std::uint32_t step = 1; step <= 64; ++step) {
            ServerSettings settings = sweepSettings(devices);
            settings.contextTokens = step * 4096;
            settings.cacheTypeK = type;
            settings.cacheTypeV = type;
            auto estimate = estimateMemory(model, settings, gpus);
            if (estimate) {
                sum += estimate->totals.totalBytes();
            }
        }
    }
    return sum;
}

// The sweep from the model prepared once (prepareModel), as the GUI holds it: after the first
// iteration every structure's compute plan is compiled (computeplancache.h), so this is the sweep
// of a chart whose settings changed only in context and cache types already seen.
void BM_Sweep(benchmark::State& state) {
    const SizingModel model = prepareModel(defaultCardModel());
    if (sweep(model, state.range(0)) == 0) {
        state.SkipWithError("no estimate in the sweep");
        return;
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(sweep(model, state.range(0)));
    }
    state.counters["estimates"] = static_cast<double>(allowedCacheTypes().size() * 64);
}
BENCHMARK(BM_Sweep)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMicrosecond);

// The same sweep from a freshly prepared model each time: every plan compiled anew, as after a
// change of ubatch, slots, layers or devices.
void BM_SweepCold(benchmark::State& state) {
    const ModelInfo info = defaultCardModel();
    for (auto _ : state) {
        state.PauseTiming();
        const SizingModel model = prepareModel(info);
        state.ResumeTiming();
        benchmark::DoNotOptimize(sweep(model, state.range(0)));
    }
}
BENCHMARK(BM_SweepCold)->Arg(0)->Arg(1)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

void BM_ParseHeader(benchmark::State& state) {
    auto card = findBuiltinModelCard(defaultModelCardId());
    char dir[] = "/tmp/llamafit-bench-XXXXXX";
    if (!card || !::mkdtemp(dir)) {
        state.SkipWithError("cannot prepare the sparse model");
        return;
    }
    const std::string path = std::string(dir) + "/qwen35moe.gguf";
    if (auto written = test::writeSpecAsGguf(*card, path); !written) {
        state.SkipWithError(written.error().message.c_str());
        return;
    }
    std::size_t tensors = 0;
    for (auto _ : state) {
        auto file = readGgufModel(path);
        if (!file) {
            state.SkipWithError(file.error().message.c_str());
            break;
        }
        tensors = file->tensors.size();
        benchmark::DoNotOptimize(file);
    }
    state.counters["tensors"] = static_cast<double>(tensors);
    std::remove(path.c_str());
    ::rmdir(dir);
}
BENCHMARK(BM_ParseHeader)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace llamafit

BENCHMARK_MAIN();
