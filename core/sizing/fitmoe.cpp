// Step 4 of the fit replica: llama.cpp common/fit.cpp (b11669), after "converting dense-only
// layers to full layers and filling them front-to-back with overflow to next device/system
// memory". Only for MoE models whose dense weights fit with a surplus. See fitmeasure.h.

#include "core/sizing/fitmeasure.h"

#include <algorithm>

namespace llamafit::fit {

namespace {

// The first device (from the back) of the run of devices holding dense-only layers; nd if none.
std::size_t firstDenseDevice(const LayerLayout& layout) {
    std::size_t start = layout.devices.size();
    for (std::size_t id = layout.devices.size(); id-- > 0;) {
        if (layout.devices[id].layers == 0) {
            break;
        }
        start = id;
    }
    return start;
}

// Whether device `id` (and the next one, which the overflow may land on) stay under target.
// llama.cpp compares strictly here, unlike the <= of the layer filling.
bool underTargets(const std::vector<std::int64_t>& mem, const std::vector<std::int64_t>& targets,
                  std::size_t id) {
    return mem[id] < targets[id] && (id + 1 == targets.size() || mem[id + 1] < targets[id + 1]);
}

} // namespace

Result<bool> convertFrontToBack(Measurer& measurer, const ServerSettings& settings,
                                const std::vector<std::int64_t>& targets, LayerLayout& layout,
                                std::vector<std::int64_t>& mem, std::vector<std::string>& trace) {
    const std::size_t nd = measurer.deviceCount();
    std::size_t denseStart = firstDenseDevice(layout);
    trace.push_back(
        "converting dense-only layers to full layers and filling them front-to-back with overflow to "
        "next device/system memory:");
    for (std::size_t id = 0; id <= denseStart && denseStart < nd; ++id) {
        // The "high" bound: every dense-only layer from denseStart on becomes a full layer of
        // device id (the output layer stays on the last device).
        LayerLayout high = layout;
        for (std::size_t jd = denseStart; jd < nd; ++jd) {
            const std::uint32_t move = jd + 1 < nd ? high.devices[jd].layers : high.devices[jd].layers - 1;
            high.devices[id].layers += move;
            high.devices[jd].layers -= move;
            high.devices[jd].partial = 0;
        }
        std::size_t denseStartHigh = nd - 1;
        Result<std::vector<std::int64_t>> memHigh = measurer.measure(settings, high);
        if (!memHigh) {
            return memHigh.error();
        }
        if ((*memHigh)[id] > targets[id]) {
            std::uint32_t delta = high.devices[id].full() - layout.devices[id].full();
            while (delta > 1) {
                const std::uint32_t step = falsePositionStep(delta, targets[id], mem[id], (*memHigh)[id]);
                // Convert `step` partial layers, taken from denseStart onwards, into full layers of id.
                LayerLayout test = layout;
                std::size_t denseStartTest = denseStart;
                std::uint32_t converted = 0;
                for (; denseStartTest < nd; ++denseStartTest) {
                    DeviceLayers& from = test.devices[denseStartTest];
                    const std::uint32_t n = std::min(step - converted, from.partial);
                    from.layers -= n;
                    from.partial -= n;
                    test.devices[id].layers += n;
                    converted += n;
                    if (from.partial > 0) {
                        break;
                    }
                }
                Result<std::vector<std::int64_t>> memTest = measurer.measure(settings, test);
                if (!memTest) {
                    return memTest.error();
                }
                if ((*memTest)[id] <= targets[id]) {
                    layout = std::move(test);
                    mem = std::move(*memTest);
                    denseStart = denseStartTest;
                } else {
                    high = std::move(test);
                    *memHigh = std::move(*memTest);
                    denseStartHigh = denseStartTest;
                }
                delta = high.devices[id].full() - layout.devices[id].full();
            }
        } else {
            layout = std::move(high);
            mem = std::move(*memHigh);
            denseStart = denseStartHigh;
        }

        // Try part of one more layer: its ffn_up/gate/down overflow to the next device or the CPU.
        if (denseStart < nd && layout.devices[denseStart].layers > (id + 1 < nd ? 0u : 1u)) {
            LayerLayout test = layout;
            std::size_t denseStartTest = denseStart;
            test.devices[denseStartTest].layers--;
            test.devices[denseStartTest].partial--;
            test.devices[id].layers++;
            test.devices[id].partial++;
            if (test.devices[denseStartTest].partial == 0) {
                denseStartTest++;
            }
            if (id + 1 < nd) {
                test.overflowBuffers[id] = measurer.gpus()[id + 1].name;
            }
            const auto tryFraction = [&](LayerFraction fraction) -> Result<bool> {
                test.devices[id].overflow = fraction;
                Result<std::vector<std::int64_t>> memTest = measurer.measure(settings, test);
                if (!memTest) {
                    return memTest.error();
                }
                if (!underTargets(*memTest, targets, id)) {
                    return false;
                }
                layout = test;
                mem = std::move(*memTest);
                denseStart = denseStartTest;
                return true;
            };
            Result<bool> up = tryFraction(LayerFraction::Up);
            if (!up) {
                return up.error();
            }
            Result<bool> next =
                *up ? tryFraction(LayerFraction::Gate) : tryFraction(LayerFraction::Attention);
            if (!next) {
                return next.error();
            }
        }
        trace.push_back(deviceLine(measurer.gpus()[id], layout.devices[id], mem[id], true));
    }
    for (std::size_t id = denseStart + 1; id < nd; ++id) {
        trace.push_back(deviceLine(measurer.gpus()[id], layout.devices[id], mem[id], true));
    }
    return true;
}

} // namespace llamafit::fit
