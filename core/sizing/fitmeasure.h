#pragma once
// Internal to the fit replica (fitreplica.cpp, fitlayers.cpp): llama.cpp's dry-run measurement
// restated as an estimate, and the layer layout fit writes into -ngl, -ts and -ot. llama.cpp
// common/fit.cpp: common_get_device_memory_data_impl (the measurement) and the ngl_t /
// set_ngl_tensor_split_tbo pair (the layout). Bytes are signed here, as in llama.cpp, so that a
// deficit is a negative number.

#include "core/sizing/fitreplica.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit::fit {

// Which tensors of a device's first partial layer move off the device (common/fit.cpp
// common_layer_fraction_t). The other partial layers always move only their routed experts.
enum class LayerFraction {
    Attention, // only the attention stays: every ffn_* tensor of the layer moves
    Up,        // attention + ffn_up stay
    Gate,      // attention + ffn_up + ffn_gate stay: ffn_down moves
    Moe,       // everything but the routed experts (ffn_*_exps) stays
};

// The layers one device holds: `layers` in all, of which the last `partial` keep their routed
// experts (or the fraction above) elsewhere.
struct DeviceLayers {
    std::uint32_t layers = 0;
    std::uint32_t partial = 0;
    LayerFraction overflow = LayerFraction::Moe;
    std::uint32_t full() const { return layers - partial; }
    bool operator==(const DeviceLayers&) const = default;
};

// A candidate layout: layers per GPU and where each GPU's first partial layer overflows to
// ("CPU" or the next GPU's name).
struct LayerLayout {
    std::vector<DeviceLayers> devices;
    std::vector<std::string> overflowBuffers;
    bool operator==(const LayerLayout&) const = default;
};

class Measurer {
  public:
    Measurer(const SizingModel& model, const std::vector<GpuDevice>& gpus);

    // The projection (fitProjection) of `settings`: one entry per GPU, then the host.
    Result<std::vector<std::int64_t>> measure(const ServerSettings& settings);
    // The projection of `settings` with the layout's -ngl, -ts and -ot applied.
    Result<std::vector<std::int64_t>> measure(const ServerSettings& settings, const LayerLayout& layout);

    std::uint32_t measurements() const { return m_measurements; }
    std::size_t deviceCount() const { return m_gpus.size(); }
    const std::vector<GpuDevice>& gpus() const { return m_gpus; }

  private:
    const SizingModel& m_model;
    std::vector<GpuDevice> m_gpus;
    std::uint32_t m_measurements = 0;
};

// The -ngl, -ts and -ot a layout stands for, applied to `settings` (llama.cpp's
// set_ngl_tensor_split_tbo): the layers fill the GPUs in device order from the back of the model
// (the output layer counts as layer `blockCount`); within a device, full layers come first.
void applyLayout(const LayerLayout& layout, std::uint32_t blockCount, ServerSettings& settings,
                 std::vector<TensorOverride>& fitOverrides);

// One step of the method of false position, common/fit.cpp: see fitlayers.cpp.
std::uint32_t falsePositionStep(std::uint32_t delta, std::int64_t target, std::int64_t low,
                                std::int64_t high);

// "  - Vulkan0: 12 layers (3 overflowing), 900 MiB used, 124 MiB free", llama.cpp's summary line.
std::string deviceLine(const GpuDevice& gpu, const DeviceLayers& layers, std::int64_t used, bool moe);

// Step 4 (MoE models whose dense weights all fit, fitmoe.cpp): turn the dense-only layers at the
// back into full layers at the front, device by device, then try one more partial layer.
Result<bool> convertFrontToBack(Measurer& measurer, const ServerSettings& settings,
                                const std::vector<std::int64_t>& targets, LayerLayout& layout,
                                std::vector<std::int64_t>& mem, std::vector<std::string>& trace);

// Step 3 and 4 of common_params_fit_impl: fill the GPUs with layers (dense models) or with
// dense-only layers and then convert them to full layers (MoE models). `targets` are the bytes
// each GPU may use; `trace` gets llama.cpp's log lines.
Result<LayerLayout> fitLayers(Measurer& measurer, const ServerSettings& settings, std::uint32_t blockCount,
                              bool moe, const std::vector<std::int64_t>& targets,
                              std::vector<std::string>& trace);

} // namespace llamafit::fit
