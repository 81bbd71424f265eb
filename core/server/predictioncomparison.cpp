#include "core/server/predictioncomparison.h"

#include "core/common/units.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace llamafit {
namespace {

// llama.cpp prints "%8.2f MiB": each printed value is within 0.005 MiB of the true size, so a
// sum of n printed lines is within 0.005 * n (plus one more step for the estimate's own print).
constexpr double kPrintedHalfStepMiB = 0.005;
// Doubles parsed from two-decimal text are not exact; keep the bound from flipping on that.
constexpr double kSlackMiB = 1e-6;

constexpr Component kCompared[] = {Component::Model, Component::Kv, Component::Rs, Component::Output,
                                   Component::Compute};

double loggedMiB(const LoggedDevice& device, Component component) {
    switch (component) {
    case Component::Model:
        return device.modelMiB;
    case Component::Kv:
        return device.kvMiB;
    case Component::Rs:
        return device.rsMiB;
    case Component::Output:
        return device.outputMiB;
    case Component::Compute:
        return device.computeMiB;
    case Component::Overhead:
        break;
    }
    return 0;
}

// How many printed lines were summed into one device's component.
std::uint32_t printedLines(const AllocationLog& log, const std::string& device, Component component) {
    std::uint32_t lines = 0;
    if (component == Component::Model) {
        for (const auto& [type, count] : log.modelLines) {
            lines += deviceOfBufferType(type) == device ? count : 0;
        }
    } else if (component == Component::Kv) {
        for (const LoggedKvCache& cache : log.kvCaches) {
            for (const auto& [type, mib] : cache.bufferMiB) {
                lines += deviceOfBufferType(type) == device ? 1 : 0;
            }
        }
    }
    return std::max<std::uint32_t>(lines, 1);
}

ComponentComparison compare(Component component, double predicted, double actual, std::uint32_t lines,
                            double toleranceFraction) {
    ComponentComparison c;
    c.component = component;
    c.predictedMiB = predicted;
    c.actualMiB = actual;
    c.errorMiB = predicted - actual;
    if (actual > 0) {
        c.relativeError = c.errorMiB / actual;
    }
    c.printToleranceMiB = kPrintedHalfStepMiB * lines + kPrintedHalfStepMiB;
    const double allowed = std::max(toleranceFraction * actual, c.printToleranceMiB);
    c.flagged = std::fabs(c.errorMiB) > allowed + kSlackMiB;
    return c;
}

} // namespace

bool DeviceComparison::anyFlagged() const {
    return std::any_of(components.begin(), components.end(), [](const auto& c) { return c.flagged; });
}

const ComponentComparison* DeviceComparison::find(Component component) const {
    for (const ComponentComparison& c : components) {
        if (c.component == component) {
            return &c;
        }
    }
    return nullptr;
}

bool PredictionComparison::anyFlagged() const {
    return std::any_of(devices.begin(), devices.end(), [](const auto& d) { return d.anyFlagged(); });
}

const DeviceComparison* PredictionComparison::find(const std::string& deviceName) const {
    for (const DeviceComparison& d : devices) {
        if (d.name == deviceName) {
            return &d;
        }
    }
    return nullptr;
}

PredictionComparison comparePrediction(const MemoryEstimate& estimate, const AllocationLog& log,
                                       double toleranceFraction) {
    PredictionComparison result;
    result.toleranceFraction = toleranceFraction;
    const std::vector<LoggedDevice> logged = log.devices();

    // Pair each logged device with a predicted one: by name, else (GPUs only) the next
    // predicted GPU nobody claimed -- the estimate may carry a user label instead of "CUDA0".
    std::vector<bool> claimed(estimate.devices.size(), false);
    std::vector<std::optional<std::size_t>> pairOf(logged.size());
    for (std::size_t i = 0; i < logged.size(); ++i) {
        for (std::size_t j = 0; j < estimate.devices.size(); ++j) {
            if (!claimed[j] && estimate.devices[j].name == logged[i].name) {
                pairOf[i] = j;
                claimed[j] = true;
                break;
            }
        }
    }
    for (std::size_t i = 0; i < logged.size(); ++i) {
        for (std::size_t j = 0; !pairOf[i] && !logged[i].host && j < estimate.devices.size(); ++j) {
            if (!claimed[j] && !estimate.devices[j].host) {
                pairOf[i] = j;
                claimed[j] = true;
            }
        }
    }

    auto add = [&](const std::string& name, bool host, const ComponentBytes& predicted,
                   const LoggedDevice& actual) {
        DeviceComparison device{name, host, {}, 0, 0};
        for (const Component component : kCompared) {
            device.components.push_back(
                compare(component, toMiB(predicted.get(component)), loggedMiB(actual, component),
                        printedLines(log, actual.name, component), toleranceFraction));
            device.predictedTotalMiB += device.components.back().predictedMiB;
            device.actualTotalMiB += device.components.back().actualMiB;
        }
        result.devices.push_back(std::move(device));
    };
    for (std::size_t i = 0; i < logged.size(); ++i) {
        add(logged[i].name, logged[i].host, pairOf[i] ? estimate.devices[*pairOf[i]].bytes : ComponentBytes{},
            logged[i]);
    }
    // Predicted devices the log never mentions (a GPU the server did not use): all error.
    for (std::size_t j = 0; j < estimate.devices.size(); ++j) {
        const DeviceEstimate& device = estimate.devices[j];
        ComponentBytes buffers = device.bytes;
        buffers.overheadBytes = 0;
        if (!claimed[j] && buffers.totalBytes() > 0) {
            add(device.name, device.host, device.bytes, LoggedDevice{device.name, device.host});
        }
    }
    return result;
}

std::string formatPredictionComparison(const PredictionComparison& comparison) {
    // The device column as wide as its longest name ("RPC0[192.168.1.20:50052]"), at least 11.
    int width = 11;
    for (const DeviceComparison& device : comparison.devices) {
        width = std::max(width, static_cast<int>(device.name.size()));
    }
    std::string text = "  " + std::string("device") + std::string(static_cast<std::size_t>(width) - 5, ' ') +
                       "component     predicted        actual      error       rel\n";
    char row[256];
    for (const DeviceComparison& device : comparison.devices) {
        for (const ComponentComparison& c : device.components) {
            if (c.predictedMiB == 0 && c.actualMiB == 0) {
                continue;
            }
            char relative[32] = "        -";
            if (c.relativeError) {
                std::snprintf(relative, sizeof relative, "%+8.2f %%", 100.0 * *c.relativeError);
            }
            std::snprintf(row, sizeof row, "%c %-*s %-9s %10.2f MiB %10.2f MiB %+9.2f %s\n",
                          c.flagged ? '!' : ' ', width, device.name.c_str(),
                          std::string(componentName(c.component)).c_str(), c.predictedMiB, c.actualMiB,
                          c.errorMiB, relative);
            text += row;
        }
        std::snprintf(row, sizeof row, "  %-*s %-9s %10.2f MiB %10.2f MiB %+9.2f\n", width,
                      device.name.c_str(), "total", device.predictedTotalMiB, device.actualTotalMiB,
                      device.predictedTotalMiB - device.actualTotalMiB);
        text += row;
    }
    if (comparison.anyFlagged()) {
        std::snprintf(row, sizeof row, "! = off by more than %.0f %% (beyond the log's rounding)\n",
                      100.0 * comparison.toleranceFraction);
        text += row;
    }
    return text;
}

} // namespace llamafit
