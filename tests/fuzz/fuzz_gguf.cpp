// GGUF bytes -> the reader, then (for whatever parses) the model interpreter and an estimate
// with default settings and with one GPU: the path every model file a user opens takes.
#include "core/gguf/ggufreader.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "core/sizing/sizingmodel.h"

#include <cstddef>
#include <cstdint>
#include <span>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace llamafit;
    // The data region is claimed to be far larger than the header: sparse models look like this.
    const std::uint64_t fileBytes = size + (std::uint64_t{1} << 34);
    Result<GgufFile> file = parseGguf(std::span<const std::uint8_t>(data, size), fileBytes);
    if (!file) {
        return 0;
    }
    Result<ModelInfo> model = interpretModel(*file);
    if (!model) {
        return 0;
    }
    const SizingModel prepared = prepareModel(*model);
    ServerSettings settings;
    settings.contextTokens = 4096;
    (void)estimateMemory(prepared, settings);
    GpuDevice gpu;
    gpu.name = "CUDA0";
    gpu.memoryBytes = std::uint64_t{8} << 30;
    gpu.backend = Backend::Cuda;
    settings.gpuLayers = GpuLayers::all();
    (void)estimateMemory(prepared, settings, {gpu});
    return 0;
}
