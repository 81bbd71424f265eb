#pragma once
// The host compute buffer when a GPU refuses the KQ product of layers whose KV cache it holds
// (flash attention off, KQ over the device's storage-buffer range, as lavapipe's 128 MiB): the
// CPU backend runs KQ, soft_max and KQV, with copies of the layer's whole K and V and of Q
// (ggml-backend.cpp ggml_backend_sched_split_graph), after the graph inputs and the token lookup
// rows, which are free again by then. Whether K fits the hole the mixed-embedding input left
// decides the peak, so the sequence is replayed through AllocatorReplay, as read from the
// server's own plans on lavapipe (scripts/alloc-plan/run-case.sh llama_l4_ngl_all_np1_faoff:
// "Vulkan_Host compute buffer size = 282.01 MiB", K in the hole; ..._c16384_np4_faoff: 306.01,
// K above the inputs). A second cache (sliding window) adds its inputs after the first's, and they
// stay (cohere2_l4_ngl_all_c16384_np4_faoff: 360.02). Internal to core/sizing (gpucompute.cpp); bytes.

#include <cstdint>
#include <vector>

namespace llamafit {

struct HostAttentionShape {
    std::uint64_t embd = 0;           // n_embd
    std::uint64_t queryValues = 0;    // n_head * head_dim_k per token
    std::uint64_t valueRowValues = 0; // n_head_kv * head_dim_v: the V store's indices per token
    std::uint64_t cells = 0;          // the cache's cells per stream: the f32 KQ mask's columns
    std::uint64_t keyCopyBytes = 0;   // one layer's K cache tensor (every stream)
    std::uint64_t valueCopyBytes = 0; // one layer's V cache tensor
    std::uint64_t kqBytes = 0;        // the refused KQ product
    struct CacheInputs {
        std::uint64_t cells = 0;
        std::uint64_t valueRowValues = 0;
    };
    std::vector<CacheInputs> otherCaches; // the other caches' inputs, in the graph's order
};

// `tokens` = the reserve's token count; `outputs` = the output rows it asks for.
std::uint64_t hostAttentionBytes(const HostAttentionShape& shape, std::uint64_t tokens,
                                 std::uint64_t outputs);

} // namespace llamafit
