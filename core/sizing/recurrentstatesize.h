#pragma once
// Recurrent-state (RS) sizing: the f32 conv/shift (R) and SSM/WKV (S) state rows of every
// recurrent layer. Internal to core/sizing. Bytes; independent of the context length.

#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"

#include <cstdint>
#include <vector>

namespace llamafit {

struct RsPlan {
    RsEstimate rs;
    std::vector<std::uint64_t> layerBytes; // per block: R + S bytes
    bool operator==(const RsPlan&) const = default;
};

RsPlan sizeRecurrentState(const ModelInfo& model, const ResolvedContext& context);

} // namespace llamafit
