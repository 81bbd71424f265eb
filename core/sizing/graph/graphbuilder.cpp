// ggml's graph-building API over a ComputeGraph; see graphbuilder.h. Shapes, strides and sources
// restate ggml/src/ggml.c (ggml_new_tensor_impl, ggml_view_impl and each op's constructor).
#include "core/sizing/graph/graphbuilder.h"

#include <stdexcept>
#include <utility>

namespace llamafit::graph {

std::array<std::uint64_t, 4> contiguousStrides(GgmlType type, const GraphBuilder::Shape& ne) {
    // ggml_new_tensor_impl: nb[0] is the type's block bytes, nb[1] a row of blocks, then products.
    const GgmlTypeTraits& traits = ggmlTypeTraits(type);
    std::array<std::uint64_t, 4> nb{};
    nb[0] = traits.bytesPerBlock;
    nb[1] = nb[0] * (static_cast<std::uint64_t>(ne[0]) / traits.blockSize);
    nb[2] = nb[1] * static_cast<std::uint64_t>(ne[1]);
    nb[3] = nb[2] * static_cast<std::uint64_t>(ne[2]);
    return nb;
}

TensorId GraphBuilder::add(Tensor tensor) {
    m_graph.tensors.push_back(std::move(tensor));
    m_visited.push_back(false);
    return static_cast<TensorId>(m_graph.tensors.size() - 1);
}

void GraphBuilder::reserve(std::size_t tensors) {
    m_graph.nodes.reserve(tensors);
    m_graph.leafs.reserve(tensors / 2);
    m_visited.reserve(tensors);
}

BufferId GraphBuilder::addBuffer(Buffer buffer) {
    for (BufferId id = 0; id < m_graph.buffers.size(); ++id) {
        if (m_graph.buffers[id] == buffer) {
            return id;
        }
    }
    m_graph.buffers.push_back(std::move(buffer));
    return static_cast<BufferId>(m_graph.buffers.size() - 1);
}

TensorId GraphBuilder::leaf(GgmlType type, Shape ne, std::string name, BufferId buffer) {
    Tensor tensor;
    tensor.type = type;
    tensor.ne = ne;
    tensor.nb = contiguousStrides(type, ne);
    tensor.name = std::move(name);
    tensor.buffer = buffer;
    return add(std::move(tensor));
}

TensorId GraphBuilder::input(GgmlType type, Shape ne, std::string name) {
    const TensorId id = leaf(type, ne, std::move(name));
    m_graph[id].flags |= kFlagInput;
    return id;
}

TensorId GraphBuilder::newTensor(GgmlOp op, GgmlType type, Shape ne, std::vector<TensorId> sources) {
    Tensor tensor;
    tensor.op = op;
    tensor.type = type;
    tensor.ne = ne;
    tensor.nb = contiguousStrides(type, ne);
    for (std::size_t i = 0; i < sources.size(); ++i) {
        tensor.sources[i] = sources[i];
    }
    return add(std::move(tensor));
}

TensorId GraphBuilder::newView(GgmlOp op, TensorId source, Shape ne, std::array<std::uint64_t, 4> nb,
                               std::uint64_t offset) {
    // ggml_view_impl: a view of a view points at the tensor that owns the memory.
    const Tensor& parent = m_graph[source];
    Tensor tensor;
    tensor.op = op;
    tensor.type = parent.type;
    tensor.ne = ne;
    tensor.nb = nb;
    tensor.viewSource = parent.isView() ? parent.viewSource : source;
    tensor.viewOffset = offset + (parent.isView() ? parent.viewOffset : 0);
    tensor.sources[0] = source;
    return add(std::move(tensor));
}

TensorId GraphBuilder::getRows(TensorId a, TensorId rows) {
    // ggml_get_rows: F32 rows (I32 from an I32 table), one per index.
    const Tensor& table = m_graph[a];
    const Tensor& index = m_graph[rows];
    const GgmlType type = table.type == GgmlType::I32 ? GgmlType::I32 : GgmlType::F32;
    return newTensor(GgmlOp::GetRows, type, {table.ne[0], index.ne[0], index.ne[1], index.ne[2]}, {a, rows});
}

TensorId GraphBuilder::dup(TensorId a) {
    return newTensor(GgmlOp::Dup, m_graph[a].type, m_graph[a].ne, {a});
}

TensorId GraphBuilder::setRows(TensorId destination, TensorId values, TensorId rows) {
    // ggml_set_rows: a view of the destination, written in place; b11669 lists the destination as
    // its third source.
    const Tensor& target = m_graph[destination];
    const TensorId id = newView(GgmlOp::SetRows, destination, target.ne, target.nb, 0);
    Tensor& tensor = m_graph[id];
    tensor.sources = {values,    rows,      destination, kNoTensor, kNoTensor,
                      kNoTensor, kNoTensor, kNoTensor,   kNoTensor, kNoTensor};
    return id;
}

TensorId GraphBuilder::rmsNorm(TensorId a) {
    return newTensor(GgmlOp::RmsNorm, m_graph[a].type, m_graph[a].ne, {a});
}

TensorId GraphBuilder::norm(TensorId a) {
    return newTensor(GgmlOp::Norm, m_graph[a].type, m_graph[a].ne, {a});
}

TensorId GraphBuilder::add(TensorId a, TensorId b) {
    return newTensor(GgmlOp::Add, m_graph[a].type, m_graph[a].ne, {a, b});
}

TensorId GraphBuilder::mul(TensorId a, TensorId b) {
    return newTensor(GgmlOp::Mul, m_graph[a].type, m_graph[a].ne, {a, b});
}

TensorId GraphBuilder::scale(TensorId a) {
    return newTensor(GgmlOp::Scale, m_graph[a].type, m_graph[a].ne, {a});
}

TensorId GraphBuilder::mulMat(TensorId a, TensorId b) {
    // ggml_mul_mat: F32 [a.ne1, b.ne1, b.ne2, b.ne3].
    const Tensor& left = m_graph[a];
    const Tensor& right = m_graph[b];
    return newTensor(GgmlOp::MulMat, GgmlType::F32, {left.ne[1], right.ne[1], right.ne[2], right.ne[3]},
                     {a, b});
}

TensorId GraphBuilder::rope(TensorId a, TensorId positions, TensorId factors) {
    std::vector<TensorId> sources{a, positions};
    if (factors != kNoTensor) {
        sources.push_back(factors);
    }
    return newTensor(GgmlOp::Rope, m_graph[a].type, m_graph[a].ne, sources);
}

TensorId GraphBuilder::reshape(TensorId a, Shape ne) {
    const GgmlType type = m_graph[a].type;
    return newView(GgmlOp::Reshape, a, ne, contiguousStrides(type, ne), 0);
}

TensorId GraphBuilder::view(TensorId a, Shape ne, std::array<std::uint64_t, 3> nb, std::uint64_t offset) {
    const std::uint64_t elementBytes = ggmlTypeTraits(m_graph[a].type).bytesPerBlock;
    return newView(GgmlOp::View, a, ne, {elementBytes, nb[0], nb[1], nb[2]}, offset);
}

TensorId GraphBuilder::view1d(TensorId a, std::int64_t ne0, std::uint64_t offset) {
    const std::uint64_t row = ggmlTypeTraits(m_graph[a].type).bytesPerBlock * static_cast<std::uint64_t>(ne0);
    return view(a, {ne0, 1, 1, 1}, {row, row, row}, offset);
}

TensorId GraphBuilder::view2d(TensorId a, std::int64_t ne0, std::int64_t ne1, std::uint64_t nb1,
                              std::uint64_t offset) {
    const std::uint64_t nb2 = nb1 * static_cast<std::uint64_t>(ne1);
    return view(a, {ne0, ne1, 1, 1}, {nb1, nb2, nb2}, offset);
}

TensorId GraphBuilder::view3d(TensorId a, Shape ne, std::uint64_t nb1, std::uint64_t nb2,
                              std::uint64_t offset) {
    return view(a, {ne[0], ne[1], ne[2], 1}, {nb1, nb2, nb2 * static_cast<std::uint64_t>(ne[2])}, offset);
}

TensorId GraphBuilder::permute(TensorId a, std::array<int, 4> axes) {
    // ggml_permute: dimension i of the source becomes dimension axes[i].
    const Tensor& source = m_graph[a];
    Shape ne{};
    std::array<std::uint64_t, 4> nb{};
    for (std::size_t i = 0; i < 4; ++i) {
        ne[static_cast<std::size_t>(axes[i])] = source.ne[i];
        nb[static_cast<std::size_t>(axes[i])] = source.nb[i];
    }
    const TensorId id = newView(GgmlOp::Permute, a, ne, nb, 0);
    for (std::size_t i = 0; i < 4; ++i) {
        m_graph[id].opParams[i] = axes[i];
    }
    return id;
}

TensorId GraphBuilder::transpose(TensorId a) {
    const Tensor& source = m_graph[a];
    return newView(GgmlOp::Transpose, a, {source.ne[1], source.ne[0], source.ne[2], source.ne[3]},
                   {source.nb[1], source.nb[0], source.nb[2], source.nb[3]}, 0);
}

TensorId GraphBuilder::cont(TensorId a, Shape ne) {
    return newTensor(GgmlOp::Cont, m_graph[a].type, ne, {a});
}

TensorId GraphBuilder::cast(TensorId a, GgmlType type) {
    // ggml_cast: a CPY into a new tensor that is its own second source.
    const TensorId id = newTensor(GgmlOp::Cpy, type, m_graph[a].ne, {a});
    m_graph[id].sources[1] = id;
    return id;
}

TensorId GraphBuilder::softMax(TensorId a, TensorId mask, TensorId sinks) {
    // ggml_soft_max_add_sinks adds no node: it sets the soft_max's src[2].
    return newTensor(GgmlOp::SoftMax, m_graph[a].type, m_graph[a].ne, {a, mask, sinks});
}

TensorId GraphBuilder::scaleInPlace(TensorId a) {
    // ggml_scale_impl with inplace: ggml_view_tensor(a).
    const Tensor& source = m_graph[a];
    return newView(GgmlOp::Scale, a, source.ne, source.nb, 0);
}

TensorId GraphBuilder::cpy(TensorId a, TensorId b) {
    // ggml_cpy: a view of b (the destination), its sources a and b. ggml names it after both
    // ("b (copy of a)"), the name ggml's scheduler aborts with when b's buffer cannot run the copy;
    // only named tensors are given one here, which is where an abort can be foretold.
    const Tensor& target = m_graph[b];
    const TensorId id = newView(GgmlOp::Cpy, b, target.ne, target.nb, 0);
    m_graph[id].sources[0] = a;
    m_graph[id].sources[1] = b;
    if (!m_graph[b].name.empty()) {
        m_graph[id].name = m_graph[b].name + " (copy of " + m_graph[a].name + ")";
    }
    return id;
}

TensorId GraphBuilder::concat(TensorId a, TensorId b, int dim) {
    // ggml_concat: a's type, the two extents of `dim` added.
    Shape ne = m_graph[a].ne;
    ne[static_cast<std::size_t>(dim)] += m_graph[b].ne[static_cast<std::size_t>(dim)];
    const TensorId id = newTensor(GgmlOp::Concat, m_graph[a].type, ne, {a, b});
    m_graph[id].opParams[0] = dim;
    return id;
}

TensorId GraphBuilder::pad(TensorId a, Shape after) {
    // ggml_pad -> ggml_pad_ext(a, 0, p0, 0, p1, 0, p2, 0, p3): a's type, each extent grown; the op
    // params hold (before, after) per dimension, then the circular flag (0).
    Shape ne = m_graph[a].ne;
    for (std::size_t d = 0; d < ne.size(); ++d) {
        ne[d] += after[d];
    }
    const TensorId id = newTensor(GgmlOp::Pad, m_graph[a].type, ne, {a});
    for (std::size_t d = 0; d < after.size(); ++d) {
        m_graph[id].opParams[2 * d + 1] = static_cast<std::int32_t>(after[d]);
    }
    return id;
}

TensorId GraphBuilder::ssmConv(TensorId sx, TensorId c) {
    // ggml_ssm_conv: [d_inner, n_t, n_s], n_t = sx.ne0 - d_conv + 1.
    const Tensor& x = m_graph[sx];
    const Tensor& kernel = m_graph[c];
    return newTensor(GgmlOp::SsmConv, GgmlType::F32, {kernel.ne[1], x.ne[0] - kernel.ne[0] + 1, x.ne[2], 1},
                     {sx, c});
}

TensorId GraphBuilder::ssmScan(TensorId s, TensorId x, TensorId dt, TensorId A, TensorId B, TensorId C,
                               TensorId ids) {
    // ggml_ssm_scan: 1-D, ggml_nelements(x) + s.ne0 * s.ne1 * s.ne2 * ids.ne0 values.
    const Tensor& state = m_graph[s];
    const Tensor& input = m_graph[x];
    const std::int64_t values = input.ne[0] * input.ne[1] * input.ne[2] * input.ne[3] +
                                state.ne[0] * state.ne[1] * state.ne[2] * m_graph[ids].ne[0];
    return newTensor(GgmlOp::SsmScan, GgmlType::F32, {values, 1, 1, 1}, {s, x, dt, A, B, C, ids});
}

TensorId GraphBuilder::sqr(TensorId a) {
    return newTensor(GgmlOp::Sqr, m_graph[a].type, m_graph[a].ne, {a});
}

TensorId GraphBuilder::flashAttention(TensorId q, TensorId k, TensorId v, TensorId mask, TensorId sinks) {
    // ggml_flash_attn_ext: F32 [v.ne0, q.ne2, q.ne1, q.ne3], the heads before the tokens.
    const Tensor& query = m_graph[q];
    std::vector<TensorId> sources{q, k, v, mask};
    if (sinks != kNoTensor) {
        sources.push_back(sinks);
    }
    return newTensor(GgmlOp::FlashAttnExt, GgmlType::F32,
                     {m_graph[v].ne[0], query.ne[2], query.ne[1], query.ne[3]}, sources);
}

TensorId GraphBuilder::glu(TensorId a, TensorId b, GluOp op) {
    // ggml_glu_impl with a second operand: the result has a's shape.
    const TensorId id = newTensor(GgmlOp::Glu, m_graph[a].type, m_graph[a].ne, {a, b});
    m_graph[id].opParams[0] = static_cast<std::int32_t>(op);
    return id;
}

TensorId GraphBuilder::gluHalves(TensorId a, GluOp op) {
    Shape ne = m_graph[a].ne;
    ne[0] /= 2;
    const TensorId id = newTensor(GgmlOp::Glu, m_graph[a].type, ne, {a});
    m_graph[id].opParams[0] = static_cast<std::int32_t>(op);
    return id;
}

TensorId GraphBuilder::unary(TensorId a, UnaryOp op) {
    const TensorId id = newTensor(GgmlOp::Unary, m_graph[a].type, m_graph[a].ne, {a});
    m_graph[id].opParams[0] = static_cast<std::int32_t>(op);
    return id;
}

TensorId GraphBuilder::argsort(TensorId a) {
    return newTensor(GgmlOp::Argsort, GgmlType::I32, m_graph[a].ne, {a});
}

TensorId GraphBuilder::sumRows(TensorId a) {
    const Shape ne = m_graph[a].ne;
    return newTensor(GgmlOp::SumRows, m_graph[a].type, {1, ne[1], ne[2], ne[3]}, {a});
}

TensorId GraphBuilder::clamp(TensorId a) {
    // ggml_clamp: b11669's plans show a tensor of its own, not a view of a.
    return newTensor(GgmlOp::Clamp, m_graph[a].type, m_graph[a].ne, {a});
}

TensorId GraphBuilder::div(TensorId a, TensorId b) {
    return newTensor(GgmlOp::Div, m_graph[a].type, m_graph[a].ne, {a, b});
}

TensorId GraphBuilder::mulMatId(TensorId as, TensorId b, TensorId ids) {
    // ggml_mul_mat_id: F32 [as.ne1, ids.ne0, b.ne2, 1].
    return newTensor(GgmlOp::MulMatId, GgmlType::F32,
                     {m_graph[as].ne[1], m_graph[ids].ne[0], m_graph[b].ne[2], 1}, {as, b, ids});
}

TensorId GraphBuilder::addId(TensorId a, TensorId b, TensorId ids) {
    // ggml_add_id: ggml_dup_tensor(a), sources a, b and ids.
    return newTensor(GgmlOp::AddId, m_graph[a].type, m_graph[a].ne, {a, b, ids});
}

TensorId GraphBuilder::repeat(TensorId a, Shape ne) {
    // ggml_repeat_4d: a new tensor of a's type and the asked shape, its one source a.
    return newTensor(GgmlOp::Repeat, m_graph[a].type, ne, {a});
}

TensorId GraphBuilder::gatedDeltaNet(TensorId q, TensorId k, TensorId v, TensorId g, TensorId beta,
                                     TensorId state, std::int64_t snapshots) {
    // ggml_gated_delta_net: rows of S_v * H values, one per token of every sequence, then K * S_v
    // per sequence for the state snapshots; K in op_params[0].
    const Tensor& values = m_graph[v];
    const std::int64_t headSize = values.ne[0];
    const std::int64_t sequences = values.ne[3];
    const std::int64_t rows = values.ne[2] * sequences + snapshots * headSize * sequences;
    const TensorId id = newTensor(GgmlOp::GatedDeltaNet, GgmlType::F32, {headSize * values.ne[1], rows, 1, 1},
                                  {q, k, v, g, beta, state});
    m_graph[id].opParams[0] = static_cast<std::int32_t>(snapshots);
    return id;
}

TensorId GraphBuilder::sub(TensorId a, TensorId b) {
    return newTensor(GgmlOp::Sub, m_graph[a].type, m_graph[a].ne, {a, b});
}

TensorId GraphBuilder::l2Norm(TensorId a) {
    // ggml_l2_norm_impl: ggml_dup_tensor(a), eps in op_params[0].
    return newTensor(GgmlOp::L2Norm, m_graph[a].type, m_graph[a].ne, {a});
}

namespace {

// ggml_rwkv_wkv6, ggml_rwkv_wkv7, ggml_gated_linear_attn: "concat output and new_state", F32
// {S * H, n_tokens + S * n_seqs}, S, H and n_tokens from k, n_seqs from the state's ne[1].
GraphBuilder::Shape linearAttentionShape(const Tensor& k, const Tensor& state) {
    return {k.ne[0] * k.ne[1], k.ne[2] + k.ne[0] * state.ne[1], 1, 1};
}

} // namespace

TensorId GraphBuilder::rwkvWkv6(TensorId k, TensorId v, TensorId r, TensorId timeFirst, TensorId timeDecay,
                                TensorId state) {
    return newTensor(GgmlOp::RwkvWkv6, GgmlType::F32, linearAttentionShape(m_graph[k], m_graph[state]),
                     {k, v, r, timeFirst, timeDecay, state});
}

TensorId GraphBuilder::rwkvWkv7(TensorId r, TensorId w, TensorId k, TensorId v, TensorId a, TensorId b,
                                TensorId state) {
    return newTensor(GgmlOp::RwkvWkv7, GgmlType::F32, linearAttentionShape(m_graph[k], m_graph[state]),
                     {r, w, k, v, a, b, state});
}

TensorId GraphBuilder::gatedLinearAttn(TensorId k, TensorId v, TensorId q, TensorId g, TensorId state) {
    return newTensor(GgmlOp::GatedLinearAttn, GgmlType::F32, linearAttentionShape(m_graph[k], m_graph[state]),
                     {k, v, q, g, state});
}

void GraphBuilder::expand(TensorId id) {
    // ggml_visit_parents: sources first, left to right; an op-less tensor is a leaf.
    if (id >= m_visited.size()) {
        throw std::out_of_range("a tensor the graph does not hold"); // buildModelGraph's error
    }
    if (m_visited[id]) {
        return;
    }
    m_visited[id] = true;
    for (const TensorId source : m_graph[id].sources) {
        if (source != kNoTensor) {
            expand(source);
        }
    }
    const Tensor& tensor = m_graph[id];
    if (tensor.op == GgmlOp::None && !tensor.hasFlag(kFlagParam)) {
        m_graph.leafs.push_back(id);
    } else {
        m_graph.nodes.push_back(id);
    }
}

} // namespace llamafit::graph
