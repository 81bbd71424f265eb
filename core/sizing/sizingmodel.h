#pragma once
// SizingModel: a ModelInfo together with what the estimate derives from the model alone --
// tensor bytes summed into placement groups (weightclass.h) and the compute-buffer widths
// (computebuffer.h) -- worked out once by prepareModel(). Context sweeps, the solvers and the
// GUI's sliders estimate from it, so each estimate pays only for what the settings change (a few
// dozen groups instead of every tensor name). It also holds the files loaded with the model (LoRA
// adapters, a draft model), so the solvers' answers include them. Immutable value type: the
// derived parts always belong to the model it holds. Produces results identical to
// estimateMemory(ModelInfo, ..., companions).
//
// Its copies share one ComputePlanCache (computeplancache.h): the sizing engine's plans, compiled
// once per structure and read as the context changes; and one PlacementCache (placementcache.h):
// the layers' and weights' placement per settings. The caches only remember answers, so they are
// no part of the value: two SizingModels of one model are equal whatever their caches hold.

#include "core/model/companionmodels.h"
#include "core/model/modelinfo.h"
#include "core/sizing/computebuffer.h"
#include "core/sizing/computeplancache.h"
#include "core/sizing/placementcache.h"
#include "core/sizing/weightclass.h"

#include <memory>

namespace llamafit {

class SizingModel {
  public:
    explicit SizingModel(ModelInfo model, CompanionModels companions = {});

    const ModelInfo& model() const { return m_model; }
    const CompanionModels& companions() const { return m_companions; }
    const WeightGroups& weightGroups() const { return m_weightGroups; }
    const ComputeWidths& computeWidths() const { return m_computeWidths; }
    ComputePlanCache& planCache() const { return *m_caches.plans; }
    PlacementCache& placementCache() const { return *m_caches.placements; }

    bool operator==(const SizingModel&) const = default;

  private:
    ModelInfo m_model;
    CompanionModels m_companions;
    WeightGroups m_weightGroups;
    ComputeWidths m_computeWidths;
    struct SharedCaches {
        std::shared_ptr<ComputePlanCache> plans = std::make_shared<ComputePlanCache>();
        std::shared_ptr<PlacementCache> placements = std::make_shared<PlacementCache>();
        bool operator==(const SharedCaches&) const { return true; }
    };
    SharedCaches m_caches;
};

// Pure: one pass over the tensors and layers. Pass an rvalue to move the model in.
SizingModel prepareModel(ModelInfo model, CompanionModels companions = {});

} // namespace llamafit
