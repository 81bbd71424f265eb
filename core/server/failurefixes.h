#pragma once
// FailureFixes: what to change after llama-server ran out of memory. Given the allocation
// failure read from its log (allocationfailure.h: buffer type, size, phase), the settings it
// ran with and the memory the failed device has, names the component that did not fit (by
// the phase and by matching the failed size against the prediction's buffers) and computes,
// with the solvers and re-estimates, concrete changes that fit: a smaller context, cheaper
// K/V cache types, fewer slots, a smaller ubatch, fewer GPU layers. Each fix is data the GUI
// offers as one click (the full new settings plus the flag that changed) and
// `llamafit-cli launch` prints. The diagnosis and the fixes are values (kinds and numbers): the
// front ends word them (app/cli/fixtext.h in English, ui/launch/fixtext.h with tr()). Pure, Qt-free.
//
// The budget is the failed device's memory for llama.cpp's buffers: for a GPU what the driver
// reports free, for a CPU run under an address-space rlimit the caller's figure (the log
// does not say it; lowerBoundFromLog() gives what it proves: the buffers that were allocated
// before the failure did fit).
//
// Units: bytes.
//
// Error codes: server.no-failed-device (the failure names a device the settings do not use),
// server.zero-budget, plus the estimator's settings.* codes for the original settings.

#include "core/common/result.h"
#include "core/server/allocationfailure.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class FixKind { Context, CacheTypes, Slots, Ubatch, GpuLayers };

// Stable kebab names for object names, JSON and tests: "context", "cache-types", "slots",
// "ubatch", "gpu-layers".
std::string_view fixKindName(FixKind kind);

struct FailureFix {
    FixKind kind = FixKind::Context;
    // What changed: tokens (Context, Ubatch), slots (Slots) or GPU layers (GpuLayers), from the
    // value the failed run had to the one that fits; CacheTypes changes the K/V types instead.
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    GgmlType fromK = GgmlType::F16;
    GgmlType fromV = GgmlType::F16;
    GgmlType toK = GgmlType::F16;
    GgmlType toV = GgmlType::F16;
    std::vector<std::string> removedArgs; // the old spelling of what changed: {"-c", "65536"}
    std::vector<std::string> addedArgs;   // the new spelling: {"-c", "49152"}
    ServerSettings settings;              // the whole settings with the change applied
    std::uint64_t deviceBytes = 0;        // predicted on the failed device with the change
    std::uint64_t totalBytes = 0;         // predicted over all devices with the change
    bool operator==(const FailureFix&) const = default;
};

struct FailureDiagnosis {
    std::string device;                     // the failed device as the estimate names it ("CPU", "CUDA0")
    std::optional<Component> component;     // what did not fit; nullopt when neither phase nor size tells
    bool sizeMatched = false;               // the failed size equals a predicted buffer (within 1 %)
    std::uint64_t predictedBufferBytes = 0; // the prediction's buffer of that component on that device
    std::uint64_t predictedDeviceBytes = 0; // the prediction's total on the device
    std::uint64_t budgetBytes = 0;
    std::optional<std::uint64_t> failedBytes; // the allocation that failed, when the log gave its size
    std::vector<FailureFix> fixes;            // the failed component's most direct fix first
    bool operator==(const FailureDiagnosis&) const = default;
};

// `gpus` as for estimateMemory; `availableBytes` is the failed device's budget.
Result<FailureDiagnosis> diagnoseAllocationFailure(const SizingModel& model, const ServerSettings& settings,
                                                   const std::vector<GpuDevice>& gpus,
                                                   const AllocationFailure& failure,
                                                   std::uint64_t availableBytes);

// The bytes a log proves the failed device could hold: the buffers on that device printed
// before the failure (they were allocated). A lower bound: the real limit lies between this
// and this plus the failed size.
std::uint64_t lowerBoundFromLog(std::string_view log, const AllocationFailure& failure);

} // namespace llamafit
