// The compute graph's tensor arithmetic; see computegraph.h.
#include "core/sizing/graph/computegraph.h"

namespace llamafit::graph {

std::uint64_t Tensor::bytes() const {
    // ggml/src/ggml.c ggml_nbytes: an empty tensor has no bytes; a block type spans its first
    // dimension in blocks, every other dimension by its stride.
    for (const std::int64_t n : ne) {
        if (n <= 0) {
            return 0;
        }
    }
    const GgmlTypeTraits& traits = ggmlTypeTraits(type);
    std::uint64_t bytes = 0;
    if (traits.blockSize == 1) {
        bytes = traits.bytesPerBlock;
        for (std::size_t i = 0; i < 4; ++i) {
            bytes += static_cast<std::uint64_t>(ne[i] - 1) * nb[i];
        }
    } else {
        bytes = static_cast<std::uint64_t>(ne[0]) * nb[0] / traits.blockSize;
        for (std::size_t i = 1; i < 4; ++i) {
            bytes += static_cast<std::uint64_t>(ne[i] - 1) * nb[i];
        }
    }
    return bytes;
}

std::size_t Tensor::sourceCount() const {
    std::size_t count = 0;
    for (const TensorId source : sources) {
        count += source != kNoTensor ? 1 : 0;
    }
    return count;
}

const Buffer* ComputeGraph::bufferOf(TensorId id) const {
    const Tensor& tensor = tensors[id];
    const BufferId buffer = tensor.isView() ? tensors[tensor.viewSource].buffer : tensor.buffer;
    return buffer == kNoBuffer ? nullptr : &buffers[buffer];
}

} // namespace llamafit::graph
