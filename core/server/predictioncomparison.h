#pragma once
// PredictionComparison: the sizing core's prediction (MemoryEstimate) next to what
// llama-server really allocated (AllocationLog, its -lv 4 log), per device and per
// component (model, KV, RS, output, compute), with absolute and relative error and a flag
// on every component that is off by more than 1 %. Used by `llamafit-cli launch` (a table
// once the server is ready) and later by the GUI's predicted-versus-actual view. Pure,
// Qt-free.
//
// Devices are matched by name after summing buffer types per device the way AllocationLog
// does (strip _Mapped/_REPACK; CPU*, *_Host and BLAS are the host "CPU"). A GPU the estimate
// calls by a user label ("RTX 4090") is paired with an unmatched logged GPU in order.
// Overhead is not a llama.cpp buffer and is not compared.
//
// Units: MiB as doubles (llama.cpp prints two decimals); relative error is a fraction.

#include "core/server/allocationlog.h"
#include "core/sizing/memoryestimate.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct ComponentComparison {
    Component component = Component::Model;
    double predictedMiB = 0;
    double actualMiB = 0;
    double errorMiB = 0;                 // predicted - actual
    std::optional<double> relativeError; // errorMiB / actualMiB; nullopt when nothing was allocated
    double printToleranceMiB = 0;        // what the log's two-decimal rounding alone can explain
    bool flagged = false;                // off by more than the tolerance fraction and the print rounding
    bool operator==(const ComponentComparison&) const = default;
};

struct DeviceComparison {
    std::string name; // the logged device name ("CPU", "CUDA0"), else the estimate's
    bool host = false;
    std::vector<ComponentComparison> components; // model, kv, rs, output, compute (in this order)
    double predictedTotalMiB = 0;                // of the compared components
    double actualTotalMiB = 0;
    bool anyFlagged() const;
    const ComponentComparison* find(Component component) const;
    bool operator==(const DeviceComparison&) const = default;
};

struct PredictionComparison {
    std::vector<DeviceComparison> devices; // host first, as AllocationLog::devices()
    double toleranceFraction = 0.01;
    bool anyFlagged() const;
    const DeviceComparison* find(const std::string& deviceName) const;
    bool operator==(const PredictionComparison&) const = default;
};

// `toleranceFraction` 0.01 = flag components more than 1 % off (and beyond print rounding).
PredictionComparison comparePrediction(const MemoryEstimate& estimate, const AllocationLog& log,
                                       double toleranceFraction = 0.01);

// A plain-text table, one row per device and component, "!" marking flagged rows:
//   device  component   predicted     actual     error      rel
//   CPU     kv           128.00 MiB   128.00 MiB   +0.00  +0.00 %
std::string formatPredictionComparison(const PredictionComparison& comparison);

} // namespace llamafit
