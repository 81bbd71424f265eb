// prepareModel(): the model-only parts of an estimate, derived once.
#include "core/sizing/sizingmodel.h"

#include <utility>

namespace llamafit {

SizingModel::SizingModel(ModelInfo model, CompanionModels companions)
    : m_model(std::move(model)), m_companions(std::move(companions)), m_weightGroups(groupWeights(m_model)),
      m_computeWidths(llamafit::computeWidths(m_model)) {}

SizingModel prepareModel(ModelInfo model, CompanionModels companions) {
    return SizingModel(std::move(model), std::move(companions));
}

} // namespace llamafit
