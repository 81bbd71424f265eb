#pragma once
// GraphBuilder: ggml's graph-building API (ggml/src/ggml.c) as far as llama.cpp's inference graphs
// use it, over a ComputeGraph. Each op gives its result the type, shape and strides ggml gives it,
// and expand() orders nodes and leafs as ggml_build_forward_expand does (a depth-first walk of the
// sources, left to right; a tensor with no op is a leaf). The per-architecture builders
// (builders/*.cpp) mirror llama.cpp src/models/<arch>.cpp with it. Holds no data: shapes only.
// Sizes in bytes, shapes in elements.

#include "core/sizing/graph/computegraph.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace llamafit::graph {

class GraphBuilder {
  public:
    using Shape = std::array<std::int64_t, 4>;

    // A tensor with no op: a weight or cache in `buffer`, or an input (ggml_set_input).
    TensorId leaf(GgmlType type, Shape ne, std::string name, BufferId buffer = kNoBuffer);
    TensorId input(GgmlType type, Shape ne, std::string name);
    BufferId addBuffer(Buffer buffer);
    // Room for about this many tensors, so that building does not regrow the vectors.
    void reserve(std::size_t tensors);

    // ggml ops; ne as ggml computes it.
    TensorId getRows(TensorId a, TensorId rows);
    TensorId dup(TensorId a);
    TensorId setRows(TensorId destination, TensorId values, TensorId rows);
    TensorId rmsNorm(TensorId a);
    TensorId norm(TensorId a);
    TensorId add(TensorId a, TensorId b);
    TensorId mul(TensorId a, TensorId b);
    TensorId scale(TensorId a);
    TensorId mulMat(TensorId a, TensorId b);
    TensorId rope(TensorId a, TensorId positions, TensorId factors = kNoTensor);
    TensorId reshape(TensorId a, Shape ne);
    TensorId view(TensorId a, Shape ne, std::array<std::uint64_t, 3> nb, std::uint64_t offset);
    // ggml_view_1d .. ggml_view_3d: a view of fewer dimensions, the strides above filled in.
    TensorId view1d(TensorId a, std::int64_t ne0, std::uint64_t offset);
    TensorId view2d(TensorId a, std::int64_t ne0, std::int64_t ne1, std::uint64_t nb1, std::uint64_t offset);
    TensorId view3d(TensorId a, Shape ne, std::uint64_t nb1, std::uint64_t nb2, std::uint64_t offset);
    TensorId permute(TensorId a, std::array<int, 4> axes);
    TensorId transpose(TensorId a);
    TensorId cont(TensorId a, Shape ne);
    TensorId cast(TensorId a, GgmlType type);
    // ggml_soft_max_ext; `sinks` as ggml_soft_max_add_sinks sets it (src[2], gpt-oss's attention sinks).
    TensorId softMax(TensorId a, TensorId mask, TensorId sinks = kNoTensor);
    // The recurrent-state ops (llama-graph.cpp build_rs, models/graph-context-mamba.cpp):
    // ggml_scale_inplace (a view of a), ggml_cpy (a view of b, written in place), ggml_concat
    // along `dim`, ggml_ssm_conv (F32 [c.ne1, sx.ne0 - c.ne0 + 1, sx.ne2]) and ggml_ssm_scan (F32,
    // one row: the y of every token, then the last state of every sequence).
    TensorId scaleInPlace(TensorId a);
    TensorId cpy(TensorId a, TensorId b);
    TensorId concat(TensorId a, TensorId b, int dim);
    // ggml_pad: `after` more elements at the end of each dimension.
    TensorId pad(TensorId a, Shape after);
    TensorId ssmConv(TensorId sx, TensorId c);
    TensorId ssmScan(TensorId s, TensorId x, TensorId dt, TensorId A, TensorId B, TensorId C, TensorId ids);
    // ggml_sqr (build_ffn's LLM_FFN_RELU_SQR: relu, then its square).
    TensorId sqr(TensorId a);
    TensorId flashAttention(TensorId q, TensorId k, TensorId v, TensorId mask, TensorId sinks = kNoTensor);
    TensorId glu(TensorId a, TensorId b, GluOp op);
    // ggml_glu_impl without a second operand (ggml_swiglu(ctx, a), ...): a's rows hold the gate's
    // half and the other's, so the result is half as wide.
    TensorId gluHalves(TensorId a, GluOp op);
    TensorId unary(TensorId a, UnaryOp op);
    // The mixture-of-experts ops (llama-graph.cpp build_moe_ffn): ggml_argsort (I32 indices of a's
    // shape), ggml_sum_rows ([1, ne1, ne2, ne3]), ggml_clamp, ggml_div, and ggml_mul_mat_id (F32
    // [as.ne1, ids.ne0, b.ne2], one matrix of `as` per selected expert).
    TensorId argsort(TensorId a);
    TensorId sumRows(TensorId a);
    TensorId clamp(TensorId a);
    TensorId div(TensorId a, TensorId b);
    TensorId mulMatId(TensorId as, TensorId b, TensorId ids);
    // ggml_add_id (an expert's bias, a row of b per selected id): a's type and shape.
    TensorId addId(TensorId a, TensorId b, TensorId ids);
    // ggml_repeat_4d: a's type, tiled to `ne` (each extent a multiple of a's).
    TensorId repeat(TensorId a, Shape ne);
    // ggml_gated_delta_net (the delta-net layers of qwen3next, qwen35, qwen35moe): F32
    // [S_v * H, n_tokens * n_seqs + snapshots * S_v * n_seqs] (v is [S_v, H, n_tokens, n_seqs]):
    // every token's output, then `snapshots` copies of each sequence's state; sources q, k, v, g,
    // beta, state.
    TensorId gatedDeltaNet(TensorId q, TensorId k, TensorId v, TensorId g, TensorId beta, TensorId state,
                           std::int64_t snapshots);
    // The RWKV ops (src/models/rwkv6-base.cpp, rwkv7-base.cpp): ggml_sub (a's type and shape),
    // ggml_l2_norm (a's type and shape), and ggml_rwkv_wkv6 / ggml_rwkv_wkv7 / ggml_gated_linear_attn:
    // F32 [S * H, n_tokens + S * n_seqs] (k is [S, H, n_tokens], n_seqs the state's ne1): every
    // token's output, then each sequence's new state; sources in ggml's order.
    TensorId sub(TensorId a, TensorId b);
    TensorId l2Norm(TensorId a);
    TensorId rwkvWkv6(TensorId k, TensorId v, TensorId r, TensorId timeFirst, TensorId timeDecay,
                      TensorId state);
    TensorId rwkvWkv7(TensorId r, TensorId w, TensorId k, TensorId v, TensorId a, TensorId b, TensorId state);
    TensorId gatedLinearAttn(TensorId k, TensorId v, TensorId q, TensorId g, TensorId state);

    // ggml_set_output, a name (ggml_set_name), and a pin to a scheduler backend.
    void setOutput(TensorId id) { m_graph[id].flags |= kFlagOutput; }
    void setName(TensorId id, std::string name) { m_graph[id].name = std::move(name); }
    void pin(TensorId id, int backend) { m_graph[id].pinnedBackend = backend; }

    // ggml_build_forward_expand: appends what `id` needs, and `id`, to the graph's leafs and nodes.
    void expand(TensorId id);

    const Tensor& operator[](TensorId id) const { return m_graph[id]; }
    const ComputeGraph& graph() const { return m_graph; }
    ComputeGraph take() { return std::move(m_graph); }

  private:
    TensorId add(Tensor tensor);
    TensorId newTensor(GgmlOp op, GgmlType type, Shape ne, std::vector<TensorId> sources);
    TensorId newView(GgmlOp op, TensorId source, Shape ne, std::array<std::uint64_t, 4> nb,
                     std::uint64_t offset);

    ComputeGraph m_graph;
    std::vector<bool> m_visited;
};

// ggml_row_size-based strides of a contiguous tensor (ggml_new_tensor_impl).
std::array<std::uint64_t, 4> contiguousStrides(GgmlType type, const GraphBuilder::Shape& ne);

} // namespace llamafit::graph
