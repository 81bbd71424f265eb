#pragma once
// GraphReplay: ggml-alloc's graph allocator (ggml/src/ggml-alloc.c ggml_gallocr_alloc_graph_impl)
// over a graph written node by node in the order ggml builds it: inputs first, then each node
// after its sources; a node reuses a source's memory in place for an in-place op whose allocated
// source (never a view) dies there with the same type and shape; a tensor is freed
// after the last node that reads it, directly or through views. The vision projectors' warm-up graphs
// (projectorgraph.cpp) are written with it. The leaf weights are not written: they live in the
// weight buffer. Pure value type; bytes.

#include <array>
#include <cstdint>
#include <vector>

namespace llamafit {

class GraphReplay {
  public:
    using Id = std::size_t;
    enum class Op { Plain, InPlace }; // InPlace: add, mul, scale, unary, rope, rms_norm, soft_max ...

    // A ggml tensor's element type size and ne[0..3]; two tensors of one layout may share memory.
    struct Layout {
        std::uint64_t elementBytes = 4;
        std::array<std::uint64_t, 4> ne{1, 1, 1, 1};
        std::uint64_t bytes() const { return elementBytes * ne[0] * ne[1] * ne[2] * ne[3]; }
        bool operator==(const Layout&) const = default;
    };

    // A graph input (inp_raw, positions): allocated before every node.
    Id input(Layout layout);
    // A node computed from `sources` into a new tensor of `layout`.
    Id node(Layout layout, std::vector<Id> sources, Op op = Op::Plain);
    // A view (permute, transpose, strided view) of `source`: no memory of its own.
    Id view(Id source);
    // A contiguous view (reshape) of `source` as `layout`: no memory of its own, and never taken over
    // by an in-place node. ggml-alloc's "reusing view parent" branch is unreachable:
    // ggml_gallocr_allocate_node first skips a parent that ggml_gallocr_is_own denies, and a view is
    // never marked allocated (ggml/src/ggml-alloc.c; the server's plans agree: qwen2's RoPE over the
    // reshaped, biased Q gets memory of its own, tests/data/recorded/rpc-b11669).
    Id reshape(Id source, Layout layout);

    // A node that writes into memory allocated elsewhere (set_rows into the KV cache): it reads
    // `sources` and takes no compute memory.
    Id write(std::vector<Id> sources);
    // Marks a node as a graph output (ggml_set_output): never freed, never taken over in place.
    void markOutput(Id id);

    // Runs ggml-alloc over the graph: the compute buffer it would reserve (32-byte aligned
    // blocks, best fit, as AllocatorReplay).
    std::uint64_t plannedBytes() const;

  private:
    struct Tensor {
        Layout layout;
        std::vector<Id> sources;
        bool inPlace = false;
        bool input = false;
        bool isView = false;
        bool external = false;
        bool output = false;
        Id viewOf = 0;
    };
    Id add(Tensor tensor);

    std::vector<Tensor> m_tensors;
};

// The shorthands the replays are written in (mtpgraph.cpp, projectorgraph.cpp).
namespace replay {
inline constexpr GraphReplay::Op kInPlace = GraphReplay::Op::InPlace;
inline GraphReplay::Layout f32(std::uint64_t a, std::uint64_t b = 1, std::uint64_t c = 1,
                               std::uint64_t d = 1) {
    return {4, {a, b, c, d}};
}
inline GraphReplay::Layout f16(std::uint64_t a, std::uint64_t b = 1, std::uint64_t c = 1,
                               std::uint64_t d = 1) {
    return {2, {a, b, c, d}};
}
} // namespace replay

} // namespace llamafit
