#pragma once
// PlacementCache: the layers' and weights' placement (layerplacement.h, weightplacement.h) of a
// prepared model, remembered for the settings and GPUs asked last. Neither placement reads the
// context, and a slider, the sweep chart and the context solvers ask for one placement over and
// over; placing a 35B MoE's two hundred weight groups was a third of a warm estimate.
//
// Memoization, as computeplancache.h: an answer from it is the placers' own for the same settings
// with any context (tests/unit/sizing/sizingmodel_test.cpp). The key is the whole settings but
// the context, so any other field a placer may come to read keeps apart what it must. Shared by
// a prepared model's copies (sizingmodel.h) and locked.

#include "core/sizing/layerplacement.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/weightplacement.h"

#include <list>
#include <memory>
#include <mutex>
#include <vector>

namespace llamafit {

struct ModelPlacement {
    LayerPlacement layers;
    WeightPlan weights;
};

class PlacementCache {
  public:
    // The placement stored for these settings, whatever their context, and these GPUs; null if none.
    std::shared_ptr<const ModelPlacement> find(const ServerSettings& settings,
                                               const std::vector<GpuDevice>& gpus);
    void add(const ServerSettings& settings, const std::vector<GpuDevice>& gpus,
             std::shared_ptr<const ModelPlacement> placement);

  private:
    struct Entry {
        ServerSettings settings; // its contextTokens is whatever was compared last
        std::vector<GpuDevice> gpus;
        std::shared_ptr<const ModelPlacement> placement;
    };
    // The sweep chart's columns (nine K/V pairs) and a few other settings the user went back to.
    static constexpr std::size_t kEntries = 16;

    std::mutex m_mutex;
    std::list<Entry> m_entries; // the one used last first
};

} // namespace llamafit
