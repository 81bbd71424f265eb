#pragma once
// MemoryEstimate: the bytes llama-server will allocate, per device and per component,
// plus the resolved context and the caches' shapes. Produced by estimateMemory(), read
// by the CLI's text/JSON, the GUI's charts and the solvers. Bytes are std::uint64_t.

#include "core/gguf/ggmltype.h"
#include "core/sizing/sizerule.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class Component { Model, Kv, Rs, Output, Compute, Overhead };

// Stable lower-case names ("model", "kv", "rs", "output", "compute", "overhead"): the CLI's
// JSON and tables, and the integration tests' messages, use these.
std::string_view componentName(Component component);

struct ComponentBytes {
    std::uint64_t modelBytes = 0;
    std::uint64_t kvBytes = 0;
    std::uint64_t rsBytes = 0;
    std::uint64_t outputBytes = 0;
    std::uint64_t computeBytes = 0;
    std::uint64_t overheadBytes =
        0; // not part of any llama.cpp buffer: backend context, driver, margin-worthy slack
    std::uint64_t totalBytes() const {
        return modelBytes + kvBytes + rsBytes + outputBytes + computeBytes + overheadBytes;
    }
    std::uint64_t get(Component c) const;
    void add(Component c, std::uint64_t bytes);
    ComponentBytes& operator+=(const ComponentBytes& other);
    bool operator==(const ComponentBytes&) const = default;
};

// Which llama.cpp object a buffer belongs to: the main model and context, a second context on the
// same weights (the MTP draft context of --spec-type draft-mtp), a LoRA adapter, the draft model of
// -md with its own context, or a --mmproj vision projector.
enum class BufferOwner { Main, MtpDraft, LoraAdapter, DraftModel, Projector };

// "main", "mtp-draft", "lora", "draft-model", "mmproj": the CLI's JSON and tables.
std::string_view bufferOwnerName(BufferOwner owner);

// One llama.cpp buffer as it would be logged: "CPU_Mapped model buffer size = ...".
struct BufferEstimate {
    std::string bufferType; // "CPU_Mapped", "CPU_REPACK", "CPU", "CUDA0", "CUDA_Host", ...
    Component component = Component::Model;
    std::uint64_t bytes = 0;
    SizeRule rule; // the llama.cpp rule behind the number, worded by tooltips and --explain
    BufferOwner owner = BufferOwner::Main;
    bool operator==(const BufferEstimate&) const = default;
};

struct DeviceEstimate {
    std::string name; // "CPU" for the host, else the GPU's name
    bool host = false;
    ComponentBytes bytes;
    std::vector<BufferEstimate> buffers;
    bool operator==(const DeviceEstimate&) const = default;
};

// The context as llama.cpp resolves it (src/llama-context.cpp), printed as "llama_context: n_ctx = ...".
struct ResolvedContext {
    std::uint32_t nCtx = 0;
    std::uint32_t nCtxSeq = 0;
    std::uint32_t nSeqMax = 1;
    bool kvUnified = false;
    std::uint32_t nBatch = 0;
    std::uint32_t nUbatch = 0;
    bool flashAttention = false;
    // Flash attention was off when the KV cache was created, so V is stored transposed
    // (llama-model.cpp create_memory: v_trans = !cparams.flash_attn); -fa auto's probe, which comes
    // later, changes flashAttention only.
    bool valueCacheTransposed = true;
    std::uint32_t nOutputs = 1; // logits rows reserved: the server asks for one per slot
    std::uint32_t nRsSeq = 0;   // recurrent-state rows per sequence beyond the first (MTP drafting)
    bool operator==(const ResolvedContext&) const = default;
};

// One KV cache as llama.cpp logs it: "llama_kv_cache: size = ... (cells, layers, seqs), K (...), V (...)".
struct KvCacheEstimate {
    bool swa = false;
    std::uint32_t cells = 0;  // per stream
    std::uint32_t layers = 0; // layers that allocate K/V in this cache
    std::uint32_t streams = 1;
    GgmlType typeK = GgmlType::F16;
    GgmlType typeV = GgmlType::F16;
    std::uint64_t kBytes = 0;
    std::uint64_t vBytes = 0;
    bool operator==(const KvCacheEstimate&) const = default;
};

// The recurrent-state buffer: "llama_memory_recurrent: size = ... (cells, layers, seqs), R (f32), S (f32)".
struct RsEstimate {
    std::uint32_t cells = 0;  // max(1, n_seq_max): one per sequence
    std::uint32_t rsSeq = 0;  // n_rs_seq: extra rows per cell (MTP drafting), rows = cells * (1 + rsSeq)
    std::uint32_t layers = 0; // recurrent layers that hold state
    std::uint64_t rBytes = 0;
    std::uint64_t sBytes = 0;
    bool operator==(const RsEstimate&) const = default;
};

// The MTP draft context (mtpcontext.h): its resolved values and KV cache; its buffers are in
// the devices' lists with owner MtpDraft, counted in their components.
struct MtpContextEstimate {
    ResolvedContext context;
    KvCacheEstimate kv;
    bool operator==(const MtpContextEstimate&) const = default;
};

// The draft model's context (-md, draftmodel.h): its resolved values and caches; its buffers are
// in the devices' lists with owner DraftModel, counted in their components.
struct DraftContextEstimate {
    ResolvedContext context;
    std::vector<KvCacheEstimate> kvCaches;
    RsEstimate rs;
    std::uint32_t gpuLayers = 0; // the draft's layers (output layer included) on GPUs
    bool operator==(const DraftContextEstimate&) const = default;
};

struct MemoryEstimate {
    ResolvedContext context;
    std::vector<DeviceEstimate> devices; // host ("CPU") first, then GPUs in the order given
    ComponentBytes totals;
    std::vector<KvCacheEstimate> kvCaches;     // non-SWA first, then SWA; empty for pure recurrent models
    RsEstimate rs;                             // zero for models without recurrent layers
    std::optional<MtpContextEstimate> mtp;     // --spec-type draft-mtp
    std::optional<DraftContextEstimate> draft; // -md, when its file was read
    std::uint32_t gpuLayers = 0;               // layers (output layer included) placed on GPUs
    std::vector<std::string> notes; // defaults applied, e.g. "flash attention enabled: quantized V cache"
    // Empty where the compute buffers come from llama.cpp's own graph, scheduler and allocator
    // (core/sizing/computeengine.h); else why the closed forms sized them, approximately: "no graph
    // for qwen35moe", "no backend table for CUDA0".
    std::string computeApproximation;
    // Where llama-server aborts at these settings instead of allocating, ggml's reason: its
    // scheduler meets a tensor that lives in a buffer no backend reading it can run the op on,
    // as when a KV cache tensor outgrows a Vulkan device's storage buffer range
    // (ggml-backend.cpp: "pre-allocated tensor (cache_k_l0) in a buffer (Vulkan0) that cannot run
    // the operation (NONE)"). Such settings fit no budget (solvers.h fitsBudget). Empty elsewhere.
    std::string serverAborts;
    bool operator==(const MemoryEstimate&) const = default;
};

} // namespace llamafit
