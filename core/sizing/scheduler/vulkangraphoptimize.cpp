// The Vulkan backend's node reorder; see vulkansupportsop.h. Restates
// ggml/src/ggml-vulkan/ggml-vulkan.cpp ggml_vk_graph_optimize ("Sort the graph for improved
// parallelism"): it moves independent nodes together so that they run between barriers, which
// changes when ggml-alloc frees and reuses memory, and so the compute buffer's size.
//
// The server we measure (llama.cpp b11669, Debian's ggml 0.27.0 of October 2026) is newer than the
// ggml tree we read (August 2026), and its reorder differs in four ways that its own node order in
// the plan dumps shows (tests/data/plans/vulkan_*, the .post files): the two rope fusion chains
// are kept whole like the topk_moe ones (0.27.0's libggml-vulkan.so holds both op lists), UNARY +
// MUL may follow each other like the other fused pairs, and a node also waits for an earlier
// in-place writer of the memory it reads (jamba's SCALE of the conv state before its GET_ROWS)
// and for an earlier reader of the memory it overwrites in place (mamba2's SSM_SCAN before the
// CPY that stores the new state). Each is marked "0.27.0" below. One more 0.27.0 change is not
// restated: after a kept topk_moe chain the real scheduler's graph holds one extra view of the
// chain's input (ffn_moe_logits, or ffn_moe_probs for the late-softmax chain) that keeps it
// alive to the chain's end; it changed no buffer in the recorded cases. Nor does what moves rwkv7's
// token-shift chain (UNARY, MUL, SUB, ADD) together in the real order; its buffers match too.
#include "core/sizing/scheduler/vulkansupportsop.h"

#include <algorithm>
#include <initializer_list>
#include <set>

namespace llamafit::scheduler {
namespace {

using graph::ComputeGraph;
using graph::GgmlOp;
using graph::kNoTensor;
using graph::Tensor;
using graph::TensorId;
using Pattern = std::initializer_list<GgmlOp>;

// The fusion patterns the reorder keeps together (topk_moe_* and snake_pattern).
constexpr Pattern kTopKMoeEarlySoftmaxNorm{GgmlOp::SoftMax, GgmlOp::Reshape, GgmlOp::Argsort, GgmlOp::View,
                                           GgmlOp::GetRows, GgmlOp::Reshape, GgmlOp::SumRows, GgmlOp::Clamp,
                                           GgmlOp::Div,     GgmlOp::Reshape};
constexpr Pattern kTopKMoeSigmoidNormBias{GgmlOp::Unary, GgmlOp::Reshape, GgmlOp::Add,     GgmlOp::Argsort,
                                          GgmlOp::View,  GgmlOp::GetRows, GgmlOp::Reshape, GgmlOp::SumRows,
                                          GgmlOp::Clamp, GgmlOp::Div,     GgmlOp::Reshape};
constexpr Pattern kTopKMoeSqrtSoftplusNormBias{
    GgmlOp::Unary,   GgmlOp::Sqrt,    GgmlOp::Reshape, GgmlOp::Add,   GgmlOp::Argsort, GgmlOp::View,
    GgmlOp::GetRows, GgmlOp::Reshape, GgmlOp::SumRows, GgmlOp::Clamp, GgmlOp::Div,     GgmlOp::Reshape};
constexpr Pattern kTopKMoeEarlySoftmax{GgmlOp::SoftMax, GgmlOp::Reshape, GgmlOp::Argsort, GgmlOp::View,
                                       GgmlOp::GetRows};
constexpr Pattern kTopKMoeLateSoftmax{GgmlOp::Argsort, GgmlOp::View,    GgmlOp::GetRows,
                                      GgmlOp::Reshape, GgmlOp::SoftMax, GgmlOp::Reshape};
constexpr Pattern kSnake{GgmlOp::Mul, GgmlOp::Sin, GgmlOp::Sqr, GgmlOp::Mul, GgmlOp::Add};
// 0.27.0: the rope fusions of ggml_vk_graph_compute (RMS_NORM + MUL + ROPE + VIEW + SET_ROWS, and
// ROPE + VIEW + SET_ROWS) are kept whole and never pulled forward.
constexpr Pattern kRmsNormMulRopeSetRows{GgmlOp::RmsNorm, GgmlOp::Mul, GgmlOp::Rope, GgmlOp::View,
                                         GgmlOp::SetRows};
constexpr Pattern kRopeSetRows{GgmlOp::Rope, GgmlOp::View, GgmlOp::SetRows};
constexpr std::initializer_list<const Pattern*> kPatterns{
    &kTopKMoeEarlySoftmaxNorm,     &kTopKMoeSigmoidNormBias,
    &kTopKMoeSqrtSoftplusNormBias, &kTopKMoeEarlySoftmax,
    &kTopKMoeLateSoftmax,          &kSnake,
    &kRmsNormMulRopeSetRows,       &kRopeSetRows};

// The nodes the reorder does not count as work: no op, or a view op.
bool isEmpty(const Tensor& node) {
    return node.op == GgmlOp::None || graph::isViewOp(node.op);
}

// The memory a tensor is: its view source's for a view.
TensorId baseOf(const ComputeGraph& graph, TensorId id) {
    return graph[id].isView() ? graph[id].viewSource : id;
}

// Whether a source of `reader` lies in `memory`.
bool readsMemory(const ComputeGraph& graph, TensorId reader, TensorId memory) {
    for (const TensorId source : graph[reader].sources) {
        if (source != kNoTensor && baseOf(graph, source) == memory) {
            return true;
        }
    }
    return false;
}

// is_src_of: `dst` reads `src`, or both view the same tensor ("implicit dependency"); 0.27.0 adds
// the hazards of ops that write in place: `dst` reads memory an earlier op `src` writes, or `dst`
// writes memory an earlier op `src` reads (view nodes write nothing).
bool isSourceOf(const ComputeGraph& graph, TensorId dst, TensorId src) {
    for (const TensorId source : graph[dst].sources) {
        if (source == src) {
            return true;
        }
    }
    const TensorId dstBase = baseOf(graph, dst);
    const TensorId srcBase = baseOf(graph, src);
    if (dstBase == srcBase) {
        return true;
    }
    return (!isEmpty(graph[src]) && readsMemory(graph, dst, srcBase)) ||
           (!isEmpty(graph[dst]) && readsMemory(graph, src, dstBase));
}

// The pairs ggml fuses, which the reorder lets a node follow its source directly (UNARY + MUL:
// 0.27.0).
bool fusesWithPrevious(GgmlOp previous, GgmlOp next) {
    return (previous == GgmlOp::RmsNorm && next == GgmlOp::Mul) ||
           (previous == GgmlOp::Unary && next == GgmlOp::Mul) ||
           (previous == GgmlOp::MulMat && next == GgmlOp::Add) ||
           (previous == GgmlOp::MulMatId && next == GgmlOp::AddId) ||
           (previous == GgmlOp::MulMatId && next == GgmlOp::Mul) ||
           (previous == GgmlOp::Add && next == GgmlOp::Add) ||
           (previous == GgmlOp::SsmConv && next == GgmlOp::Add) ||
           (previous == GgmlOp::SsmConv && next == GgmlOp::Unary);
}

class Reorder {
  public:
    Reorder(const ComputeGraph& graph, const std::vector<TensorId>& nodes)
        : m_graph(graph), m_nodes(nodes), m_count(static_cast<int>(nodes.size())),
          m_used(nodes.size(), false) {}

    std::vector<TensorId> run();

  private:
    const Tensor& node(int i) const { return m_graph[m_nodes[static_cast<std::size_t>(i)]]; }
    GgmlOp op(int i) const { return node(i).op; }
    bool used(int i) const { return m_used[static_cast<std::size_t>(i)]; }
    void markUsed(int i) { m_used[static_cast<std::size_t>(i)] = true; }
    bool ready(TensorId source) const { // op NONE (weights, copies) or already placed
        return m_graph[source].op == GgmlOp::None || m_placed.count(source) != 0;
    }

    bool matches(const Pattern& pattern, int start) const {
        if (start + static_cast<int>(pattern.size()) > m_count) {
            return false;
        }
        int j = start;
        for (const GgmlOp expected : pattern) {
            if (op(j) != expected || used(j)) {
                return false;
            }
            ++j;
        }
        return true;
    }
    bool matchesAny(int start) const {
        return std::any_of(kPatterns.begin(), kPatterns.end(),
                           [&](const Pattern* p) { return matches(*p, start); });
    }
    void place(int i) {
        m_order.push_back(m_nodes[static_cast<std::size_t>(i)]);
        m_placed.insert(m_nodes[static_cast<std::size_t>(i)]);
        markUsed(i);
    }
    void skipUsed() {
        while (m_firstUnused < m_count && used(m_firstUnused)) {
            ++m_firstUnused;
        }
    }
    void pullForward(int j, std::vector<int>& set);

    const ComputeGraph& m_graph;
    const std::vector<TensorId>& m_nodes;
    int m_count;
    std::vector<bool> m_used;
    std::set<TensorId> m_placed; // used_node_set
    std::vector<TensorId> m_order;
    int m_firstUnused = 0;
};

// After node j joined the set: the fused followers ggml pulls in with it.
void Reorder::pullForward(int j, std::vector<int>& set) {
    int ropeIndex = j;
    const auto window = [&](int from, int length) { return std::min(from + length, m_count); };
    // RMS_NORM + MUL: a ROPE of the MUL whose other sources are ready.
    if (j > 0 && op(j) == GgmlOp::Mul && op(j - 1) == GgmlOp::RmsNorm) {
        for (int k = j + 1; k < window(j, 15); ++k) {
            const Tensor& rope = node(k);
            if (rope.op == GgmlOp::Rope && rope.sources[0] == m_nodes[static_cast<std::size_t>(j)] &&
                m_graph[rope.sources[1]].op == GgmlOp::None &&
                (rope.sources[2] == kNoTensor || m_graph[rope.sources[2]].op == GgmlOp::None)) {
                ropeIndex = k;
                set.push_back(k);
                markUsed(k);
                break;
            }
        }
    }
    // ROPE + VIEW + SET_ROWS made consecutive.
    if (op(ropeIndex) == GgmlOp::Rope) {
        int viewIndex = -1;
        int setRowsIndex = -1;
        for (int k = ropeIndex + 1; k < window(ropeIndex, 10); ++k) {
            if (viewIndex == -1 && op(k) == GgmlOp::View &&
                node(k).sources[0] == m_nodes[static_cast<std::size_t>(ropeIndex)]) {
                viewIndex = k;
                continue;
            }
            if (viewIndex != -1 && setRowsIndex == -1 && op(k) == GgmlOp::SetRows &&
                node(k).sources[0] == m_nodes[static_cast<std::size_t>(viewIndex)]) {
                setRowsIndex = k;
                break;
            }
        }
        if (setRowsIndex != -1) {
            set.push_back(viewIndex);
            set.push_back(setRowsIndex);
            markUsed(viewIndex);
            markUsed(setRowsIndex);
        }
    }
    // MUL_MAT_ID + ADD_ID + MUL, and MUL_MAT + ADD + ADD: the second follower if its other source
    // is a weight or already placed.
    const auto followWith = [&](GgmlOp first, GgmlOp second, GgmlOp follower) {
        if (j == 0 || op(j) != second || op(j - 1) != first) {
            return;
        }
        for (int k = j + 1; k < window(j, 15); ++k) {
            const Tensor& next = node(k);
            if (next.op == follower && next.sources[0] == m_nodes[static_cast<std::size_t>(j)] &&
                ready(next.sources[1])) {
                set.push_back(k);
                markUsed(k);
                break;
            }
        }
    };
    followWith(GgmlOp::MulMatId, GgmlOp::AddId, GgmlOp::Mul);
    followWith(GgmlOp::MulMat, GgmlOp::Add, GgmlOp::Add);
    // SSM_CONV + ADD + UNARY: the UNARY reading the ADD.
    if (j > 0 && op(j) == GgmlOp::Add && op(j - 1) == GgmlOp::SsmConv) {
        for (int k = j + 1; k < window(j, 15); ++k) {
            if (op(k) == GgmlOp::Unary && node(k).sources[0] == m_nodes[static_cast<std::size_t>(j)]) {
                set.push_back(k);
                markUsed(k);
                break;
            }
        }
    }
}

std::vector<TensorId> Reorder::run() {
    constexpr int kLookAhead = 20; // NUM_TO_CHECK
    while (m_firstUnused < m_count) {
        bool kept = false;
        for (const Pattern* pattern : kPatterns) {
            if (matches(*pattern, m_firstUnused)) {
                const int start = m_firstUnused;
                for (int j = 0; j < static_cast<int>(pattern->size()); ++j) {
                    place(start + j);
                }
                skipUsed();
                kept = true;
                break;
            }
        }
        if (kept) {
            continue;
        }
        std::vector<int> set{m_firstUnused};
        const int end = std::min(m_firstUnused + kLookAhead, m_count);
        // First pass: real nodes that depend on nothing still waiting, or only on the set's last
        // node through a fusable pair.
        for (int j = m_firstUnused + 1; j < end; ++j) {
            if (used(j) || isEmpty(node(j)) || matchesAny(j)) {
                continue;
            }
            bool ok = true;
            for (int c = m_firstUnused; c < j; ++c) {
                if (!used(c) &&
                    isSourceOf(m_graph, m_nodes[static_cast<std::size_t>(j)],
                               m_nodes[static_cast<std::size_t>(c)]) &&
                    !(j == c + 1 && c == set.back() && fusesWithPrevious(op(c), op(j)))) {
                    ok = false;
                    break;
                }
            }
            if (ok) {
                set.push_back(j);
                pullForward(j, set);
            }
        }
        // Second pass: view nodes whose sources are placed or in the set, unless the set ends in
        // an ADD (add -> rms_norm and add -> add fuse).
        if (op(set.back()) != GgmlOp::Add) {
            for (int j = m_firstUnused + 1; j < end; ++j) {
                if (used(j) || !isEmpty(node(j))) {
                    continue;
                }
                bool ok = true;
                for (int c = m_firstUnused; c < j; ++c) {
                    if (!used(c) &&
                        isSourceOf(m_graph, m_nodes[static_cast<std::size_t>(j)],
                                   m_nodes[static_cast<std::size_t>(c)]) &&
                        std::find(set.begin(), set.end(), c) == set.end()) {
                        ok = false;
                        break;
                    }
                }
                if (ok) {
                    set.push_back(j);
                }
            }
        }
        for (const int c : set) {
            place(c);
        }
        skipUsed();
    }
    return m_order;
}

} // namespace

void vulkanOptimizeGraph(const ComputeGraph& graph, std::vector<TensorId>& nodes) {
    nodes = Reorder(graph, nodes).run();
}

} // namespace llamafit::scheduler
