// ModelInfo's derived figures: weight bytes, a block tensor's bytes and parameter counts over the
// tensor table, and which kinds of layers the model has.
#include "core/model/modelinfo.h"

#include <algorithm>
#include <string>

namespace llamafit {
namespace {

std::uint64_t valueCount(const TensorSummary& tensor) {
    // bytes = rowBytes(type, ne0) * rows, so values = rows * ne0 = bytes / rowBytes * ne0.
    if (tensor.rowValues == 0) {
        return 0;
    }
    const std::uint64_t rowBytes = ggmlRowBytes(tensor.type, tensor.rowValues);
    return rowBytes == 0 ? 0 : tensor.bytes / rowBytes * tensor.rowValues;
}

} // namespace

bool ModelInfo::hasRecurrentLayers() const {
    for (const auto& layer : layers) {
        if (layer.recurrent) {
            return true;
        }
    }
    return false;
}

bool ModelInfo::hasAttentionLayers() const {
    for (const auto& layer : layers) {
        if (layer.attention != AttentionKind::None) {
            return true;
        }
    }
    return false;
}

bool ModelInfo::hasSlidingWindowLayers() const {
    for (const auto& layer : layers) {
        if (layer.attention == AttentionKind::SlidingWindow || layer.attention == AttentionKind::Chunked) {
            return true;
        }
    }
    return false;
}

std::uint64_t TensorSummary::rows() const {
    const std::uint64_t values = valueCount(*this);
    return rowValues == 0 ? 0 : values / rowValues;
}

const TensorSummary* ModelInfo::blockTensor(std::size_t layer, std::string_view suffix) const {
    const std::string name = "blk." + std::to_string(layer) + "." + std::string(suffix);
    const auto found = std::find_if(tensors.begin(), tensors.end(),
                                    [&](const TensorSummary& tensor) { return tensor.name == name; });
    return found == tensors.end() ? nullptr : &*found;
}

std::uint64_t ModelInfo::blockTensorBytes(std::size_t layer, std::string_view suffix) const {
    const TensorSummary* tensor = blockTensor(layer, suffix);
    return tensor != nullptr ? tensor->bytes : 0;
}

std::uint64_t ModelInfo::weightBytes() const {
    std::uint64_t total = 0;
    for (const auto& tensor : tensors) {
        total += tensor.bytes;
    }
    return total;
}

std::map<GgmlType, std::uint64_t> ModelInfo::weightBytesByType() const {
    std::map<GgmlType, std::uint64_t> out;
    for (const auto& tensor : tensors) {
        out[tensor.type] += tensor.bytes;
    }
    return out;
}

std::uint64_t ModelInfo::parameterCount() const {
    std::uint64_t total = 0;
    for (const auto& tensor : tensors) {
        total += valueCount(tensor);
    }
    return total;
}

std::uint64_t ModelInfo::activeParameterCount() const {
    std::uint64_t total = 0;
    for (const auto& tensor : tensors) {
        const std::uint64_t values = valueCount(tensor);
        // Only expertUsedCount of expertCount routed experts run per token; shared experts
        // (ffn_*_shexp) and everything else always run.
        if (tensor.expert && expertCount > 0 && expertUsedCount <= expertCount) {
            total += values / expertCount * expertUsedCount;
        } else {
            total += values;
        }
    }
    return total;
}

} // namespace llamafit
