#pragma once
// estimateMemory(): the bytes llama-server will allocate for a model, settings and set
// of GPUs, per device and per component. Pure function: no I/O or clock, and its answer depends
// on its arguments alone, so a slider drag can recompute it every frame. Used by the CLI, the GUI
// and the solvers. From a ModelInfo it estimates through the process's prepared model of it
// (preparedmodels.h), a memo that only remembers answers.
//
// Error codes (llama-server would refuse these combinations; the message gives llama.cpp's reason):
//   settings.unsupported-cache-type     a -ctk/-ctv type llama-server does not accept
//   settings.block-size-mismatch        quantized K/V block size does not divide a head dim (FA not off)
//   settings.quantized-v-needs-fa       quantized V cache with -fa off
//   settings.mla-kv-types-differ        MLA model with -ctk != -ctv
//   settings.unsupported                --spec-type draft-mtp on a model without NextN blocks
//   adapter.arch-mismatch               a LoRA adapter of another architecture
//   (any of these for the draft model)  its own code, the message starting "draft model: "
//   settings.bad-value                  zero ubatch, zero slots, a tensor split of the wrong length, a bad
//   regex, ...

#include "core/common/result.h"
#include "core/model/companionmodels.h"
#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizingmodel.h"

#include <vector>

namespace llamafit {

Result<MemoryEstimate> estimateMemory(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus = {});

// The same with the companions' buffers: the LoRA adapters' weights as model buffers with owner
// LoraAdapter, the draft model's weights and context (draftmodel.h) with owner DraftModel. The
// overloads without companions leave out what the settings name and say so in a note.
Result<MemoryEstimate> estimateMemory(const ModelInfo& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus, const CompanionModels& companions);

// The estimate worked out from the ModelInfo alone: no prepared model, placements made tensor by
// tensor, no plan remembered. Slower; the reference that the prepared models and their caches are
// tested against (tests/unit/sizing/sizingmodel_test.cpp).
Result<MemoryEstimate> estimateMemoryUnprepared(const ModelInfo& model, const ServerSettings& settings,
                                                const std::vector<GpuDevice>& gpus = {},
                                                const CompanionModels& companions = {});

// The same estimate from a prepared model (prepareModel()): what many estimates of one model
// should use -- sweeps, solvers, every frame of a slider drag. Its companions are sized too.
Result<MemoryEstimate> estimateMemory(const SizingModel& model, const ServerSettings& settings,
                                      const std::vector<GpuDevice>& gpus = {});

// Just the context resolution (n_ctx padding, slots, unified, batch), shared with the solvers.
Result<ResolvedContext> resolveContext(const ModelInfo& model, const ServerSettings& settings);

// Checks the combinations llama-server rejects, without sizing anything.
Result<bool> validateSettings(const ModelInfo& model, const ServerSettings& settings);

// KV cache types llama-server accepts for -ctk / -ctv (common/arg.cpp kv_cache_types).
const std::vector<GgmlType>& allowedCacheTypes();

} // namespace llamafit
