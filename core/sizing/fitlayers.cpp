// The layer half of the fit replica (steps 3 and 4 of llama.cpp common/fit.cpp
// common_params_fit_impl, b11669), and the measurement both halves share; see fitmeasure.h.
// Every "measure" below is one of llama.cpp's dry runs, here an estimate.

#include "core/sizing/fitmeasure.h"

#include <algorithm>

namespace llamafit::fit {

namespace {

// The tensors of layer `il` that move off its device for a layer fraction (common/fit.cpp
// get_overflow_pattern). The text is what llama-fit-params prints after -ot, so it must match.
std::string overflowPattern(std::uint32_t il, LayerFraction fraction) {
    const std::string layer = "blk\\." + std::to_string(il) + "\\.";
    switch (fraction) {
    case LayerFraction::Attention:
        return layer + "ffn_(gate|up|gate_up|down).*";
    case LayerFraction::Up:
        return layer + "ffn_(gate|gate_up|down).*";
    case LayerFraction::Gate:
        return layer + "ffn_down.*";
    case LayerFraction::Moe:
        break;
    }
    return layer + "ffn_(up|down|gate_up|gate)_(ch|)exps";
}

// Every routed-expert tensor of every layer (common/fit.cpp pattern_moe_all).
constexpr const char* kAllExpertsPattern = "blk\\.\\d+\\.ffn_(up|down|gate_up|gate)_(ch|)exps";

// One step of the method of false position (common/fit.cpp): how many of the `delta` layers
// between the fitting and the overflowing layout to try next, interpolating linearly between
// their memory. llama.cpp casts the quotient to uint32_t before clamping it, so a negative one (the
// fitting layout already over target) wraps to a huge step and is clamped to delta - 1.
} // namespace

std::uint32_t falsePositionStep(std::uint32_t delta, std::int64_t target, std::int64_t low,
                                std::int64_t high) {
    const std::int64_t headroom = high - low;
    std::uint32_t step =
        headroom > 0
            ? static_cast<std::uint32_t>(static_cast<std::int64_t>(delta) * (target - low) / headroom)
            : delta - 1;
    return std::min(std::max(step, std::uint32_t{1}), delta - 1);
}

std::string deviceLine(const GpuDevice& gpu, const DeviceLayers& layers, std::int64_t used, bool moe) {
    constexpr std::int64_t kMiB = 1024 * 1024;
    std::string line = "  - " + gpu.name + ": " + std::to_string(layers.layers) + " layers";
    if (moe) {
        line += " (" + std::to_string(layers.partial) + " overflowing)";
    }
    return line + ", " + std::to_string(used / kMiB) + " MiB used, " +
           std::to_string((static_cast<std::int64_t>(gpu.memoryBytes) - used) / kMiB) + " MiB free";
}

Measurer::Measurer(const SizingModel& model, const std::vector<GpuDevice>& gpus)
    : m_model(model), m_gpus(gpus) {}

Result<std::vector<std::int64_t>> Measurer::measure(const ServerSettings& settings) {
    ++m_measurements;
    Result<MemoryEstimate> estimate = estimateMemory(m_model, settings, m_gpus);
    if (!estimate) {
        return estimate.error();
    }
    std::vector<std::int64_t> projection;
    for (std::uint64_t bytes : fitProjection(*estimate)) {
        projection.push_back(static_cast<std::int64_t>(bytes));
    }
    return projection;
}

Result<std::vector<std::int64_t>> Measurer::measure(const ServerSettings& settings,
                                                    const LayerLayout& layout) {
    ServerSettings laidOut = settings;
    std::vector<TensorOverride> overrides;
    applyLayout(layout, m_model.model().trunkLayerCount(), laidOut, overrides);
    return measure(laidOut);
}

void applyLayout(const LayerLayout& layout, std::uint32_t blockCount, ServerSettings& settings,
                 std::vector<TensorOverride>& fitOverrides) {
    // common/fit.cpp set_ngl_tensor_split_tbo: -ngl is the sum, -ts the layers per device (only with
    // more than one device), and the partial layers get one -ot each.
    std::uint32_t gpuLayers = 0;
    for (const DeviceLayers& device : layout.devices) {
        gpuLayers += device.layers;
    }
    settings.gpuLayers = GpuLayers::count(gpuLayers);
    settings.tensorSplit.clear();
    if (layout.devices.size() > 1) {
        for (const DeviceLayers& device : layout.devices) {
            settings.tensorSplit.push_back(device.layers);
        }
    }
    fitOverrides.clear();
    // The GPU layers are the last ones; the output layer is layer `blockCount`.
    std::uint32_t il = blockCount + 1 - gpuLayers;
    for (std::size_t id = 0; id < layout.devices.size(); ++id) {
        const DeviceLayers& device = layout.devices[id];
        il += device.full();
        for (std::uint32_t i = 0; i < device.partial; ++i) {
            const bool first = i == 0;
            fitOverrides.push_back({overflowPattern(il + i, first ? device.overflow : LayerFraction::Moe),
                                    first ? layout.overflowBuffers[id] : std::string("CPU")});
        }
        il += device.partial;
    }
    settings.tensorOverrides = fitOverrides;
}

namespace {

// Step 3: from the back of the model, give each GPU (last first) as many layers as fit its target;
// for MoE models the layers are dense-only (their experts stay on the CPU).
Result<bool> fillBackToFront(Measurer& measurer, const ServerSettings& settings, std::uint32_t blockCount,
                             bool moe, const std::vector<std::int64_t>& targets, LayerLayout& layout,
                             std::vector<std::int64_t>& mem, std::vector<std::string>& trace) {
    const std::size_t nd = measurer.deviceCount();
    trace.push_back(moe ? "filling dense-only layers back-to-front:" : "filling dense layers back-to-front:");
    for (std::size_t idx = nd; idx-- > 0;) {
        std::uint32_t unassigned = blockCount + 1;
        for (std::size_t jd = idx + 1; jd < nd; ++jd) {
            unassigned -= layout.devices[jd].layers;
        }
        LayerLayout high = layout;
        high.devices[idx].layers = unassigned;
        if (moe) {
            // The output layer (on the last device) is never partial.
            high.devices[idx].partial = idx + 1 < nd ? unassigned : unassigned - 1;
        }
        if (high.devices[idx].layers > 0) {
            Result<std::vector<std::int64_t>> memHigh = measurer.measure(settings, high);
            if (!memHigh) {
                return memHigh.error();
            }
            if ((*memHigh)[idx] > targets[idx]) {
                std::uint32_t delta = high.devices[idx].layers - layout.devices[idx].layers;
                while (delta > 1) {
                    const std::uint32_t step =
                        falsePositionStep(delta, targets[idx], mem[idx], (*memHigh)[idx]);
                    LayerLayout test = layout;
                    DeviceLayers& device = test.devices[idx];
                    device.layers += step;
                    if (moe) {
                        device.partial += idx + 1 == nd && device.partial == 0 ? step - 1 : step;
                    }
                    Result<std::vector<std::int64_t>> memTest = measurer.measure(settings, test);
                    if (!memTest) {
                        return memTest.error();
                    }
                    if ((*memTest)[idx] <= targets[idx]) {
                        layout = std::move(test);
                        mem = std::move(*memTest);
                    } else {
                        high = std::move(test);
                        *memHigh = std::move(*memTest);
                    }
                    delta = high.devices[idx].layers - layout.devices[idx].layers;
                }
            } else {
                layout = std::move(high);
                mem = std::move(*memHigh);
            }
        }
        trace.push_back(deviceLine(measurer.gpus()[idx], layout.devices[idx], mem[idx], false));
    }
    return true;
}

} // namespace

Result<LayerLayout> fitLayers(Measurer& measurer, const ServerSettings& settings, std::uint32_t blockCount,
                              bool moe, const std::vector<std::int64_t>& targets,
                              std::vector<std::string>& trace) {
    const std::size_t nd = measurer.deviceCount();
    // MoE models: with every routed expert on the CPU, is there memory left over for more?
    std::int64_t surplusWithExpertsOnCpu = 0;
    if (moe) {
        ServerSettings expertsOnCpu = settings;
        expertsOnCpu.tensorOverrides = {{kAllExpertsPattern, "CPU"}};
        Result<std::vector<std::int64_t>> memCpuMoe = measurer.measure(expertsOnCpu);
        if (!memCpuMoe) {
            return memCpuMoe.error();
        }
        for (std::size_t id = 0; id < nd; ++id) {
            surplusWithExpertsOnCpu += targets[id] - (*memCpuMoe)[id];
        }
        constexpr std::int64_t kMiB = 1024 * 1024;
        trace.push_back(surplusWithExpertsOnCpu > 0
                            ? "with only dense weights in device memory there is a total surplus of " +
                                  std::to_string(surplusWithExpertsOnCpu / kMiB) + " MiB"
                            : "with only dense weights in device memory there is still a total deficit of " +
                                  std::to_string(-surplusWithExpertsOnCpu / kMiB) + " MiB");
    }

    LayerLayout layout{std::vector<DeviceLayers>(nd), std::vector<std::string>(nd, "CPU")};
    Result<std::vector<std::int64_t>> mem = measurer.measure(settings, layout);
    if (!mem) {
        return mem.error();
    }
    if (Result<bool> filled =
            fillBackToFront(measurer, settings, blockCount, moe, targets, layout, *mem, trace);
        !filled) {
        return filled.error();
    }
    if (!moe || surplusWithExpertsOnCpu <= 0) {
        return layout;
    }
    if (Result<bool> converted = convertFrontToBack(measurer, settings, targets, layout, *mem, trace);
        !converted) {
        return converted.error();
    }
    return layout;
}

} // namespace llamafit::fit
