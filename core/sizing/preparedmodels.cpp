// The process's prepared models; see preparedmodels.h.
#include "core/sizing/preparedmodels.h"

#include <algorithm>
#include <list>
#include <mutex>

namespace llamafit {
namespace {

// A model set's members, a draft model beside its main model, and the file the GUI shows: eight
// models cover what one process sizes at a time. Each holds its tensor list and compiled plans
// (computeplancache.h keeps a bounded number), a few megabytes at most.
constexpr std::size_t kKeptModels = 8;

struct Memo {
    std::mutex mutex;
    std::list<std::shared_ptr<const SizingModel>> models; // the one used last first
};

Memo& memo() {
    static Memo instance;
    return instance;
}

// Cheap fields first, so that another model is passed over without comparing its tensor list.
bool sameModel(const SizingModel& kept, const ModelInfo& model, const CompanionModels& companions) {
    const ModelInfo& known = kept.model();
    return known.fileBytes == model.fileBytes && known.tensors.size() == model.tensors.size() &&
           known.blockCount == model.blockCount && known.architecture == model.architecture &&
           known == model && kept.companions() == companions;
}

} // namespace

std::shared_ptr<const SizingModel> preparedModelFor(const ModelInfo& model,
                                                    const CompanionModels& companions) {
    Memo& kept = memo();
    {
        const std::lock_guard lock(kept.mutex);
        const auto found = std::find_if(kept.models.begin(), kept.models.end(), [&](const auto& known) {
            return sameModel(*known, model, companions);
        });
        if (found != kept.models.end()) {
            kept.models.splice(kept.models.begin(), kept.models, found);
            return kept.models.front();
        }
    }
    // Prepared unlocked: another thread's estimate of a kept model need not wait for it. Two
    // threads preparing one model at once both keep theirs; the older copy is dropped in time.
    auto prepared = std::make_shared<const SizingModel>(prepareModel(model, companions));
    const std::lock_guard lock(kept.mutex);
    kept.models.push_front(prepared);
    if (kept.models.size() > kKeptModels) {
        kept.models.pop_back();
    }
    return prepared;
}

} // namespace llamafit
