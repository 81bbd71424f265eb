// prepareModel(): the model-only parts of an estimate, derived once.
#include "core/sizing/sizingmodel.h"

#include <utility>

namespace llamafit {

SizingModel::SizingModel(ModelInfo model)
    : m_model(std::move(model)), m_weightGroups(groupWeights(m_model)),
      m_computeWidths(llamafit::computeWidths(m_model)) {}

SizingModel prepareModel(ModelInfo model) {
    return SizingModel(std::move(model));
}

} // namespace llamafit
