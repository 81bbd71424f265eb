// The Metal backend's node reorder; see metalsupportsop.h. Restates
// ggml/src/ggml-metal/ggml-metal-common.cpp ggml_graph_optimize and
// ggml_metal_graph_optimize_reorder (llama.cpp b10587): it first packs the chains ggml-metal
// fuses (ADD / NORM / RMS_NORM followed by ADD, MUL, NORM, RMS_NORM that ggml_can_fuse accepts),
// then walks the packed nodes and, where a node must wait for the running concurrent set, pulls
// forward up to 63 later "safe" nodes that touch no memory the set or the skipped nodes write,
// so that they run in the same set. The order changes when ggml-alloc frees and reuses memory,
// and so the compute buffer's size.
//
// Memory is compared as ggml_mem_range does, with one simplification: ggml gives a tensor that
// already lives in a buffer (weights, caches) its address range there, and two such ranges in
// one buffer conflict when one ends exactly where the other starts; the graph has no addresses,
// so here distinct weight or cache tensors never conflict and a tensor conflicts with its own
// views (ranges of the same base). Compute tensors have no buffer yet, and ggml keys them by
// their base tensor as done here. ggml_can_fuse's use counts come from the whole graph as ggml
// built it; here they are counted over the graph's nodes as the scheduler left them (a source
// rewired to a split input's copy no longer counts), and every node is taken to carry
// GGML_TENSOR_FLAG_COMPUTE, as every node of llama.cpp's graphs does.
#include "core/sizing/scheduler/metalsupportsop.h"
#include "core/sizing/scheduler/tensorlayout.h"

#include <cstdint>
#include <vector>

namespace llamafit::scheduler {
namespace metalreorder {
namespace {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;

constexpr int kMaxFuse = 16; // MAX_FUSE
constexpr int kForward = 64; // N_FORWARD: nodes to look ahead for a concurrent one

// ggml_op_is_empty: the ops that read and write nothing.
bool isEmptyOp(GgmlOp op) {
    return op == GgmlOp::None || graph::isViewOp(op);
}

// h_safe: the ops the reorder may move forward.
bool isSafe(GgmlOp op) {
    switch (op) {
    case GgmlOp::MulMat:
    case GgmlOp::MulMatId:
    case GgmlOp::Rope:
    case GgmlOp::Norm:
    case GgmlOp::RmsNorm:
    case GgmlOp::GroupNorm:
    case GgmlOp::L2Norm:
    case GgmlOp::SumRows:
    case GgmlOp::SsmConv:
    case GgmlOp::SsmScan:
    case GgmlOp::Clamp:
    case GgmlOp::Tri:
    case GgmlOp::Diag:
    case GgmlOp::Mul:
    case GgmlOp::Add:
    case GgmlOp::Sub:
    case GgmlOp::Div:
    case GgmlOp::Glu:
    case GgmlOp::Scale:
    case GgmlOp::Unary:
    case GgmlOp::GetRows:
    case GgmlOp::SetRows:
    case GgmlOp::Set:
    case GgmlOp::Cpy:
    case GgmlOp::Cont:
    case GgmlOp::Repeat:
        return true;
    default:
        return isEmptyOp(op);
    }
}

bool startsFusion(GgmlOp op) {
    return op == GgmlOp::Add || op == GgmlOp::Norm || op == GgmlOp::RmsNorm;
}

bool continuesFusion(GgmlOp op) {
    return op == GgmlOp::Add || op == GgmlOp::Mul || op == GgmlOp::Norm || op == GgmlOp::RmsNorm;
}

// node_info: a node and the nodes fused behind it; its result is the last one's.
struct PackedNode {
    TensorId node = kNoTensor;
    std::vector<TensorId> fused;
    TensorId dst() const { return fused.empty() ? node : fused.back(); }
};

// A memory range: the base tensor's memory, read (source) or written (destination).
struct Range {
    TensorId base = kNoTensor;
    bool dst = false;
};

// ggml_mem_ranges: the ranges of a set of nodes. ggml keeps a list and scans it; this keeps, per
// base tensor, the generation in which it was last read and last written, so that a check is two
// loads and clearing the set is starting a new generation. The answers are the list's.
class RangeSet {
  public:
    explicit RangeSet(std::size_t tensors) : m_read(tensors, 0), m_written(tensors, 0) {}
    void clear() { ++m_generation; }
    void add(Range range) { (range.dst ? m_written : m_read)[range.base] = m_generation; }
    // ggml_mem_ranges_check: a range may join unless the set has one of the same memory and one of
    // the two is written.
    bool fits(Range range) const {
        return m_written[range.base] != m_generation && (!range.dst || m_read[range.base] != m_generation);
    }

  private:
    std::vector<std::uint32_t> m_read;
    std::vector<std::uint32_t> m_written;
    std::uint32_t m_generation = 1;
};

class Reorder {
  public:
    Reorder(const ComputeGraph& graph, const std::vector<PackedNode>& nodes)
        : m_graph(graph), m_nodes(nodes) {}

    std::vector<int> run();

  private:
    Range range(TensorId tensor, bool dst) const { return {layout::baseOf(m_graph, tensor), dst}; }

    // h_add and h_check: the sources of the node and of its fused nodes, and the last result.
    template <typename Visit> bool forEachRange(const PackedNode& node, Visit visit) const {
        const auto sources = [&](TensorId id) {
            for (const TensorId source : m_graph[id].sources) {
                if (source != kNoTensor && !visit(range(source, false))) {
                    return false;
                }
            }
            return true;
        };
        if (!sources(node.node)) {
            return false;
        }
        for (const TensorId fused : node.fused) {
            if (!sources(fused)) {
                return false;
            }
        }
        return visit(range(node.dst(), true));
    }
    void add(RangeSet& set, const PackedNode& node) const {
        forEachRange(node, [&](Range r) {
            set.add(r);
            return true;
        });
    }
    bool check(const RangeSet& set, const PackedNode& node) const {
        return forEachRange(node, [&](Range r) { return set.fits(r); });
    }
    bool isEmpty(const PackedNode& node) const { return isEmptyOp(m_graph[node.node].op); }

    const ComputeGraph& m_graph;
    const std::vector<PackedNode>& m_nodes;
};

std::vector<int> Reorder::run() {
    const int n = static_cast<int>(m_nodes.size());
    std::vector<int> order;
    order.reserve(m_nodes.size());
    std::vector<bool> used(m_nodes.size(), false);
    RangeSet concurrent(m_graph.tensors.size()); // mrs0: the set running together
    RangeSet skipped(m_graph.tensors.size());    // mrs1: the nodes passed over while looking ahead
    for (int i0 = 0; i0 < n; ++i0) {
        if (used[static_cast<std::size_t>(i0)]) {
            continue;
        }
        const PackedNode& node0 = m_nodes[static_cast<std::size_t>(i0)];
        // node0 cannot join the set: before the barrier, pull in later nodes that can.
        if (!isEmpty(node0) && !check(concurrent, node0)) {
            skipped.clear();
            add(skipped, node0);
            for (int i1 = i0 + 1; i1 < i0 + kForward && i1 < n; ++i1) {
                if (used[static_cast<std::size_t>(i1)]) {
                    continue;
                }
                const PackedNode& node1 = m_nodes[static_cast<std::size_t>(i1)];
                if (!isSafe(m_graph[node1.node].op)) {
                    break;
                }
                if ((isEmpty(node1) || check(concurrent, node1)) && check(skipped, node1)) {
                    add(concurrent, node1);
                    order.push_back(i1);
                    used[static_cast<std::size_t>(i1)] = true;
                } else {
                    add(skipped, node1);
                }
            }
            concurrent.clear();
        }
        add(concurrent, node0);
        order.push_back(i0);
    }
    return order;
}

// ggml_can_fuse over `count` consecutive nodes from `first`: every node but the last used once
// (and neither a view nor an output), each reading the one before it, all of one shape.
bool canFuse(const ComputeGraph& graph, const std::vector<TensorId>& nodes, std::size_t first,
             std::size_t count, const std::vector<int>& uses) {
    if (first + count > nodes.size()) {
        return false;
    }
    for (std::size_t j = 0; j < count; ++j) {
        const TensorId id = nodes[first + j];
        const Tensor& node = graph[id];
        if (j + 1 < count) {
            if (uses[id] != 1 || node.isView() || node.hasFlag(graph::kFlagOutput)) {
                return false;
            }
        }
        if (j > 0) {
            const TensorId previous = nodes[first + j - 1];
            if ((node.sources[0] != previous && node.sources[1] != previous) ||
                !layout::sameShape(node, graph[previous])) {
                return false;
            }
        }
    }
    return true;
}

// ggml_graph_optimize: pack the fusable chains, reorder, unpack.
void optimize(const ComputeGraph& graph, std::vector<TensorId>& nodes) {
    // use_counts: how many source slots of the graph's nodes name each tensor.
    std::vector<int> uses(graph.tensors.size(), 0);
    for (const TensorId id : graph.nodes) {
        for (const TensorId source : graph[id].sources) {
            if (source != kNoTensor) {
                ++uses[source];
            }
        }
    }
    // Pack the fusable chains: the longest run from an ADD, NORM or RMS_NORM that ggml_can_fuse
    // accepts, trying shorter ones down to two.
    std::vector<PackedNode> packed;
    packed.reserve(nodes.size());
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        PackedNode node{nodes[i], {}};
        if (startsFusion(graph[nodes[i]].op)) {
            std::size_t end = i + 1;
            while (end < nodes.size() && end < i + kMaxFuse && continuesFusion(graph[nodes[end]].op)) {
                ++end;
            }
            std::size_t count = end - i;
            for (; count > 1; --count) {
                if (canFuse(graph, nodes, i, count, uses)) {
                    break;
                }
            }
            for (std::size_t k = 1; k < count; ++k) {
                node.fused.push_back(nodes[++i]);
            }
        }
        packed.push_back(std::move(node));
    }
    // Reorder, then unpack.
    std::vector<TensorId> reordered;
    reordered.reserve(nodes.size());
    for (const int index : Reorder(graph, packed).run()) {
        const PackedNode& node = packed[static_cast<std::size_t>(index)];
        reordered.push_back(node.node);
        reordered.insert(reordered.end(), node.fused.begin(), node.fused.end());
    }
    nodes = std::move(reordered);
}

} // namespace
} // namespace metalreorder

void metalOptimizeGraph(const graph::ComputeGraph& graph, std::vector<graph::TensorId>& nodes) {
    metalreorder::optimize(graph, nodes);
}

} // namespace llamafit::scheduler
