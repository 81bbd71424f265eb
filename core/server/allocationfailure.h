#pragma once
// AllocationFailure: the out-of-memory report in a llama-server log — which buffer type,
// how many bytes, and in which phase (weights, output, KV, RS, compute, or during
// generation). Used by classifyLaunchFailure() (launchfailure.h) and, through it, by the
// launcher that matches the failed size against the prediction to suggest a fix. Pure
// function of the log text, Qt-free.
//
// Lines read (llama.cpp b11669 and ggml/src of the same era):
//   CPU     ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size N
//           ggml_aligned_malloc: insufficient memory (attempted to allocate X MB)   (MiB)
//   any     <fn>: failed to allocate <BUF> buffer of size N                        (ggml-alloc.c)
//   CUDA    <fn>: allocating X MiB on device D: cudaMalloc failed: out of memory
//   Vulkan  ggml_vulkan: Device memory allocation of size N failed. / ErrorOutOfDeviceMemory
//   Metal   <fn>: error: failed to allocate buffer, size = X MiB
// then the phase from llama.cpp's follow-up error ("failed to allocate buffer for kv cache",
// "failed to allocate compute pp buffers", "unable to allocate <BUF> buffer", ...), else from
// the last buffer-size line printed before the failure.
//
// Units: bytes (exact when llama.cpp printed bytes, else rounded from MiB).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class AllocationPhase {
    Unknown,
    ModelLoad, // weights (load_tensors)
    Output,    // the logits/embeddings output buffer
    KvCache,
    RecurrentState, // RS buffer of recurrent/hybrid models
    Compute,        // scheduler reserve (compute buffers)
    Runtime,        // after the server was ready (a larger graph during generation)
};

std::string_view allocationPhaseName(AllocationPhase phase);

struct AllocationFailure {
    std::string bufferType; // "CPU", "CUDA0", "Vulkan0", "Metal", as llama.cpp names it; empty if unknown
    std::optional<std::uint64_t> failedBytes;
    bool exactBytes = false; // printed in bytes (true) or rounded from a MiB figure (false)
    AllocationPhase phase = AllocationPhase::Unknown;
    bool operator==(const AllocationFailure&) const = default;
};

// The allocation failure in a log, if any (used by classifyLaunchFailure; exposed for tests
// and for a log that is still growing). `wasReady` makes an unmarked failure Runtime.
std::optional<AllocationFailure> findAllocationFailure(std::string_view log, bool wasReady,
                                                       std::vector<std::string>* evidence = nullptr);

// The lines of a log without their "<time> <level> " prefix (and without '\r').
std::vector<std::string_view> splitLogLines(std::string_view log);

} // namespace llamafit
