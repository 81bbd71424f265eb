// Benchmarks of the sizing core: one estimate (from the ModelInfo, and from the prepared
// SizingModel), a 64-context x 9-K/V-type sweep, and the
// header parse of a realistic 700+-tensor sparse file. Targets (issue #2): estimate <= 10 us,
// sweep <= 2 ms, parse <= 5 ms. Inputs are the built-in Qwen3.5-35B-A3B card (the app's
// default model), which is also written as a sparse GGUF with its full 248k-token vocabulary.

#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/model/modelspec.h"
#include "core/sizing/estimator.h"
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

void BM_Estimate(benchmark::State& state) {
    const ModelInfo model = defaultCardModel();
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    for (auto _ : state) {
        auto estimate = estimateMemory(model, settings);
        benchmark::DoNotOptimize(estimate);
    }
}
BENCHMARK(BM_Estimate);

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
    const SizingModel model = prepareModel(defaultCardModel());
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    for (auto _ : state) {
        auto estimate = estimateMemory(model, settings);
        benchmark::DoNotOptimize(estimate);
    }
}
BENCHMARK(BM_EstimatePrepared);

// The GUI's context sweep chart: 64 contexts x 9 K/V types (same type for K and V), from the
// model prepared once (prepareModel), as the GUI holds it.
void BM_Sweep(benchmark::State& state) {
    const SizingModel model = prepareModel(defaultCardModel());
    const auto& types = allowedCacheTypes();
    for (auto _ : state) {
        std::uint64_t sum = 0;
        for (GgmlType type : types) {
            for (std::uint32_t step = 1; step <= 64; ++step) {
                ServerSettings settings;
                settings.contextTokens = step * 4096;
                settings.cacheTypeK = type;
                settings.cacheTypeV = type;
                auto estimate = estimateMemory(model, settings);
                if (estimate) {
                    sum += estimate->totals.totalBytes();
                }
            }
        }
        benchmark::DoNotOptimize(sum);
    }
    state.counters["estimates"] = static_cast<double>(types.size() * 64);
}
BENCHMARK(BM_Sweep)->Unit(benchmark::kMicrosecond);

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
