#pragma once
// PreparedModels: the process's prepared models (sizingmodel.h), kept for the models estimated
// last. estimateMemory(ModelInfo) is what the CLI, the fit replica, the failure fixes, the BIOS
// split advisor and the model sets call, each with a plain ModelInfo and often many times over
// one model; through this memo each model's weight groups, placements and compute plans are
// worked out once per process instead of once per estimate (2.8 ms for a 35B MoE's estimate from
// scratch; a few microseconds from its prepared model).
//
// Memoization, as computeplancache.h: a model is found only when the asked ModelInfo and
// companions equal the stored ones, field by field, so an answer through it is the prepared
// model's, which equals the estimate from scratch (tests/unit/sizing/sizingmodel_test.cpp).
// Locked; the prepared models it hands out stay valid while it drops them.

#include "core/model/companionmodels.h"
#include "core/model/modelinfo.h"
#include "core/sizing/sizingmodel.h"

#include <memory>

namespace llamafit {

// The prepared model of this model and companions: the one kept when an equal pair was asked for
// before, else prepared now and kept in place of the one used longest ago.
std::shared_ptr<const SizingModel> preparedModelFor(const ModelInfo& model,
                                                    const CompanionModels& companions);

} // namespace llamafit
