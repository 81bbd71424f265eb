#pragma once
// Hand-made graphs for the backend tables' tests (cudabackend_test.cpp, metalbackend_test.cpp): a
// contiguous tensor of a type and shape, as ggml_new_tensor lays it out, added to a ComputeGraph.

#include "core/sizing/graph/computegraph.h"

#include <array>
#include <cstdint>
#include <vector>

namespace llamafit::test {

// A contiguous tensor of `type` and shape `ne`, added to the graph (a leaf without an op, else a
// node); a weight when `buffer` is set.
inline graph::TensorId addTableTensor(graph::ComputeGraph& graph, GgmlType type,
                                      std::array<std::int64_t, 4> ne, graph::GgmlOp op = graph::GgmlOp::None,
                                      std::vector<graph::TensorId> sources = {},
                                      graph::BufferId buffer = graph::kNoBuffer) {
    graph::Tensor tensor;
    tensor.op = op;
    tensor.type = type;
    tensor.ne = ne;
    const GgmlTypeTraits& traits = ggmlTypeTraits(type);
    tensor.nb[0] = traits.bytesPerBlock;
    tensor.nb[1] = tensor.nb[0] * static_cast<std::uint64_t>(ne[0]) / traits.blockSize;
    tensor.nb[2] = tensor.nb[1] * static_cast<std::uint64_t>(ne[1]);
    tensor.nb[3] = tensor.nb[2] * static_cast<std::uint64_t>(ne[2]);
    for (std::size_t i = 0; i < sources.size(); ++i) {
        tensor.sources[i] = sources[i];
    }
    tensor.buffer = buffer;
    graph.tensors.push_back(tensor);
    const auto id = static_cast<graph::TensorId>(graph.tensors.size() - 1);
    (op == graph::GgmlOp::None ? graph.leafs : graph.nodes).push_back(id);
    return id;
}

} // namespace llamafit::test
