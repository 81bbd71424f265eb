#pragma once
// ComputeGraph: a ggml compute graph as the sizing engine sees it, before ggml's scheduler splits it
// between backends (ggml/src/ggml-backend.cpp ggml_backend_sched_split_graph) and ggml-alloc lays
// out the compute buffers (ggml/src/ggml-alloc.c). One record per ggml_tensor: op, type, shape and
// strides, sources, view source, the flags ggml_set_input / ggml_set_output set, and for a tensor
// that already lives in a buffer (weights, the KV cache, the recurrent state) which buffer that is.
//
// Who makes one: the plan dumps of the real llama-server (tests/data/plans, read by
// tests/support/plandump.h) today; the per-architecture graph builders, which mirror
// llama.cpp src/models/<arch>.cpp, as issue 30 adds them. Who reads one: the scheduler port
// (core/sizing/scheduler/graphsplit.h) and the allocator port (core/sizing/allocator).
// A value type; sizes in bytes, shapes in elements.

#include "core/common/stablelist.h"
#include "core/gguf/ggmltype.h"
#include "core/sizing/graph/ggmlop.h"

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace llamafit::graph {

using TensorId = std::uint32_t;
inline constexpr TensorId kNoTensor = std::numeric_limits<TensorId>::max();
using BufferId = std::uint32_t;
inline constexpr BufferId kNoBuffer = std::numeric_limits<BufferId>::max();

// ggml_tensor_flag (ggml/include/ggml.h).
enum TensorFlag : std::uint32_t {
    kFlagInput = 1,
    kFlagOutput = 2,
    kFlagParam = 4,
    kFlagLoss = 8,
    kFlagCompute = 16,
};

// ggml_backend_buffer_usage (ggml/include/ggml-backend.h): the scheduler treats a source in a
// WEIGHTS buffer as the reason to run its op where the weight lives.
enum class BufferUsage : std::uint8_t { Any, Weights, Compute };

// A buffer that holds pre-allocated tensors: the model's weights on one buffer type, the KV cache,
// the recurrent state. `bufferType` is ggml's name of its buffer type (ggml_backend_buft_name:
// "CPU", "CPU_Mapped", "CPU_REPACK", "Vulkan0", "Vulkan_Host", "CUDA0", "RPC0[127.0.0.1:50052]").
struct Buffer {
    std::string bufferType;
    BufferUsage usage = BufferUsage::Any;
    bool host = false; // ggml_backend_buffer_is_host: the CPU can read it in place
    bool operator==(const Buffer&) const = default;
};

inline constexpr std::size_t kMaxSources = 10; // GGML_MAX_SRC

struct Tensor {
    GgmlOp op = GgmlOp::None;
    GgmlType type = GgmlType::F32;
    std::array<std::int64_t, 4> ne{1, 1, 1, 1}; // elements per dimension
    std::array<std::uint64_t, 4> nb{};          // strides in bytes
    std::array<std::int32_t, 16> opParams{}; // GGML_MAX_OP_PARAMS / 4; UNARY and GLU keep their kind in [0]
    std::uint32_t flags = 0;                 // TensorFlag bits
    std::array<TensorId, kMaxSources> sources{kNoTensor, kNoTensor, kNoTensor, kNoTensor, kNoTensor,
                                              kNoTensor, kNoTensor, kNoTensor, kNoTensor, kNoTensor};
    TensorId viewSource = kNoTensor; // view_src: whose memory a view reads
    std::uint64_t viewOffset = 0;
    BufferId buffer = kNoBuffer; // pre-allocated (weights, caches); kNoBuffer for compute tensors
    int pinnedBackend = -1; // ggml_backend_sched_set_tensor_backend, an index into the scheduler's backends
    std::string name;

    bool isView() const { return viewSource != kNoTensor; } // ggml_impl_is_view
    bool hasFlag(TensorFlag flag) const { return (flags & flag) != 0; }
    // ggml_nbytes: the bytes the tensor spans with its strides (ggml/src/ggml.c).
    std::uint64_t bytes() const;
    // ggml_are_same_layout: type, ne and nb equal (ggml/src/ggml-impl.h).
    bool sameLayout(const Tensor& other) const {
        return type == other.type && ne == other.ne && nb == other.nb;
    }
    // op_params[0] of a UNARY or GLU node.
    UnaryOp unaryOp() const { return static_cast<UnaryOp>(opParams[0]); }
    GluOp gluOp() const { return static_cast<GluOp>(opParams[0]); }
    std::size_t sourceCount() const;
};

// The graph ggml_build_forward_expand made: `leafs` (tensors with no op: weights, caches, inputs)
// and `nodes` in execution order; both index `tensors`. A tensor read by the graph but in neither
// list (a view's parent that no node uses directly) is in `tensors` only. `tensors` is a
// StableList so that a reference to one tensor stays valid while the builder or the scheduler adds
// others.
struct ComputeGraph {
    StableList<Tensor> tensors;
    std::vector<TensorId> leafs;
    std::vector<TensorId> nodes;
    std::vector<Buffer> buffers;

    // Checked: a builder that reaches for a tensor the model lacks (a hostile or broken file
    // without a weight its architecture needs, kNoTensor) throws std::out_of_range, which
    // buildModelGraph turns into its error; nothing reads past the graph.
    [[gnu::always_inline]] const Tensor& operator[](TensorId id) const { return tensors.at(id); }
    [[gnu::always_inline]] Tensor& operator[](TensorId id) { return tensors.at(id); }
    // The buffer a tensor's memory is in, through its view source (a view of the KV cache is in
    // the cache's buffer); nullptr for compute tensors.
    const Buffer* bufferOf(TensorId id) const;
};

} // namespace llamafit::graph
