#pragma once
// Helpers for the model-interpreter tests: the common keys of a transformer GGUF (metadata
// and tensor table only, no data) and small views over a ModelInfo's layers. The numbers
// tests assert are computed from the rules, never copied from the code under test.

#include "core/model/modelinfo.h"
#include "core/model/modelinterpreter.h"
#include "tests/support/ggufbuilder.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace llamafit::test {

struct TransformerShape {
    std::string architecture;
    std::uint32_t blocks = 0;
    std::uint32_t embd = 0;
    std::uint32_t heads = 0;
    std::uint32_t kvHeads = 0;
    std::uint32_t feedForward = 0;
    std::uint32_t context = 4096;
};

// block_count, context_length, embedding_length, feed_forward_length, head_count, and
// head_count_kv when kvHeads > 0 (tests set arrays or leave the key out otherwise).
inline GgufBuilder transformer(const TransformerShape& shape) {
    GgufBuilder b(shape.architecture);
    b.setUint32(b.key("block_count"), shape.blocks)
        .setUint32(b.key("context_length"), shape.context)
        .setUint32(b.key("embedding_length"), shape.embd)
        .setUint32(b.key("feed_forward_length"), shape.feedForward)
        .setUint32(b.key("attention.head_count"), shape.heads);
    if (shape.kvHeads > 0) {
        b.setUint32(b.key("attention.head_count_kv"), shape.kvHeads);
    }
    return b;
}

// Block indexes of the layers that satisfy `pred`.
inline std::vector<std::uint32_t> layersWhere(const ModelInfo& info,
                                              const std::function<bool(const LayerInfo&)>& pred) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t l = 0; l < info.layers.size(); ++l) {
        if (pred(info.layers[l])) {
            out.push_back(l);
        }
    }
    return out;
}

// f16 K+V bytes per token of the main cache: sum over hasKv layers of n_head_kv * (hk + hv) * 2.
inline std::uint64_t f16KvBytesPerToken(const ModelInfo& info) {
    std::uint64_t total = 0;
    for (const auto& layer : info.layers) {
        if (layer.hasKv) {
            total += std::uint64_t{layer.headCountKv} * (layer.keyHeadDim + layer.valueHeadDim) * 2;
        }
    }
    return total;
}

// f32 R+S bytes of one sequence: sum over recurrent layers of (n_embd_r + n_embd_s) * 4.
inline std::uint64_t rsBytesPerSequence(const ModelInfo& info) {
    std::uint64_t total = 0;
    for (const auto& layer : info.layers) {
        if (layer.recurrent) {
            total += (layer.recurrentConvWidth + layer.recurrentStateWidth) * 4;
        }
    }
    return total;
}

inline std::vector<std::uint32_t> range(std::uint32_t first, std::uint32_t end, std::uint32_t step = 1) {
    std::vector<std::uint32_t> out;
    for (std::uint32_t l = first; l < end; l += step) {
        out.push_back(l);
    }
    return out;
}

} // namespace llamafit::test
