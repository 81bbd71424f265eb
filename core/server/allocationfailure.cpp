#include "core/server/allocationfailure.h"

#include "core/server/logformats.h"
#include "core/server/logscanner.h"

#include <cmath>

namespace llamafit {

namespace {

using logformats::contains;

std::uint64_t mibToBytes(double mib) {
    return static_cast<std::uint64_t>(std::llround(mib * 1024.0 * 1024.0));
}

bool bytesNumber(LogScanner& s, std::uint64_t& out) {
    std::int64_t value = 0;
    if (!s.signedNumber(value) || value < 0) {
        return false;
    }
    out = static_cast<std::uint64_t>(value);
    return true;
}

// One line that reports a failed allocation, with the size and buffer type when printed.
bool allocationLine(std::string_view line, AllocationFailure& failure) {
    std::uint64_t bytes = 0;
    double mib = 0;
    std::string word;
    // ggml/src/ggml-backend.cpp (CPU buffer type): "...: failed to allocate buffer of size %zu"
    if (auto s = LogScanner::after(
            line, "ggml_backend_cpu_buffer_type_alloc_buffer: failed to allocate buffer of size")) {
        failure.bufferType = "CPU";
        if (bytesNumber(*s, bytes)) {
            failure.failedBytes = bytes;
            failure.exactBytes = true;
        }
        return true;
    }
    // ggml/src/ggml-alloc.c: "%s: failed to allocate %s buffer of size %zu" (gallocr, buft_alloc_buffer_n).
    if (auto s = LogScanner::after(line, "failed to allocate ")) {
        if (s->word(word) && word != "buffer" && s->literal("buffer of size") && bytesNumber(*s, bytes)) {
            failure.bufferType = word;
            failure.failedBytes = bytes;
            failure.exactBytes = true;
            return true;
        }
    }
    // ggml/src/ggml-cuda/ggml-cuda.cu: "allocating %.2f MiB on device %d: cudaMalloc failed: %s"
    if (auto s = LogScanner::after(line, "allocating")) {
        std::uint32_t device = 0;
        if (s->decimal(mib) && s->literal("MiB on device") && s->unsignedNumber(device) &&
            s->literal(": cudaMalloc failed")) {
            failure.bufferType = "CUDA" + std::to_string(device);
            failure.failedBytes = mibToBytes(mib);
            failure.exactBytes = false;
            return true;
        }
    }
    // ggml/src/ggml-vulkan/ggml-vulkan.cpp: "ggml_vulkan: Device memory allocation of size %zu failed."
    if (auto s = LogScanner::after(line, "Device memory allocation of size")) {
        if (bytesNumber(*s, bytes)) {
            failure.failedBytes = bytes;
            failure.exactBytes = true;
        }
        if (failure.bufferType.empty()) {
            failure.bufferType = "Vulkan";
        }
        return true;
    }
    if (contains(line, "ErrorOutOfDeviceMemory") || contains(line, "OutOfDeviceMemoryError")) {
        if (failure.bufferType.empty()) {
            failure.bufferType = "Vulkan";
        }
        return true;
    }
    // ggml/src/ggml-metal/ggml-metal-device.m: "%s: error: failed to allocate buffer, size = %8.2f MiB"
    if (auto s = LogScanner::after(line, "error: failed to allocate buffer, size =")) {
        failure.bufferType = contains(line, "metal") ? "Metal" : failure.bufferType;
        if (s->decimal(mib)) {
            failure.failedBytes = mibToBytes(mib);
            failure.exactBytes = false;
        }
        return true;
    }
    // ggml/src/ggml.c ggml_aligned_malloc: "insufficient memory (attempted to allocate %6.2f MB)" (MiB).
    if (auto s = LogScanner::after(line, "insufficient memory (attempted to allocate")) {
        failure.bufferType = "CPU";
        if (s->decimal(mib)) {
            failure.failedBytes = mibToBytes(mib);
            failure.exactBytes = false;
        }
        return true;
    }
    // src/llama-context.cpp: "failed to allocate output buffer of size %.2f MiB"
    if (auto s = LogScanner::after(line, "failed to allocate output buffer of size")) {
        if (s->decimal(mib)) {
            failure.failedBytes = mibToBytes(mib);
            failure.exactBytes = false;
        }
        failure.phase = AllocationPhase::Output;
        return true;
    }
    // src/llama.cpp llama_init_from_model: "failed to initialize the context: %s" with e.what(). A
    // C++ allocation (the KV cells' bookkeeping, a vector) ran out of host memory before any
    // buffer did: no size is printed.
    if (contains(line, "std::bad_alloc")) {
        if (failure.bufferType.empty()) {
            failure.bufferType = "CPU";
        }
        return true;
    }
    return contains(line, "cudaMalloc failed: out of memory") || contains(line, "CUDA error: out of memory");
}

// The phase named by llama.cpp's own follow-up error (the exception text of the failing
// constructor), which comes after the allocator's line.
AllocationPhase phaseMarker(std::string_view line) {
    if (contains(line, "failed to allocate buffer for kv cache")) { // src/llama-kv-cache.cpp
        return AllocationPhase::KvCache;
    }
    if (contains(line, "failed to allocate buffer for rs cache")) { // src/llama-memory-recurrent.cpp
        return AllocationPhase::RecurrentState;
    }
    if (contains(line, "failed to allocate compute") || contains(line, "graph_reserve: failed to allocate")) {
        return AllocationPhase::Compute; // src/llama-context.cpp sched_reserve / graph_reserve
    }
    if (contains(line, "failed to allocate output buffer")) {
        return AllocationPhase::Output;
    }
    if (contains(line, "unable to allocate") &&
        contains(line, "buffer")) { // src/llama-model.cpp load_tensors
        return AllocationPhase::ModelLoad;
    }
    return AllocationPhase::Unknown;
}

// Without a marker, the phase follows from the last allocation line printed before the
// failure: llama.cpp allocates weights, then output, KV (and RS), then compute buffers.
AllocationPhase phaseFromProgress(const std::vector<std::string_view>& lines, std::size_t failureLine) {
    AllocationPhase phase = AllocationPhase::ModelLoad;
    for (std::size_t i = 0; i < failureLine; ++i) {
        const std::string_view line = lines[i];
        if (contains(line, "model buffer size") || contains(line, "output buffer size")) {
            phase = AllocationPhase::KvCache;
        } else if (contains(line, "KV buffer size") || contains(line, "RS buffer size") ||
                   contains(line, "llama_kv_cache: size =")) {
            phase = AllocationPhase::Compute;
        } else if (contains(line, "compute buffer size")) {
            phase = AllocationPhase::Runtime;
        }
    }
    return phase;
}

} // namespace

std::vector<std::string_view> splitLogLines(std::string_view log) {
    std::vector<std::string_view> lines;
    while (!log.empty()) {
        const std::size_t newline = log.find('\n');
        std::string_view line = log.substr(0, newline);
        log = newline == std::string_view::npos ? std::string_view{} : log.substr(newline + 1);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(stripLogPrefix(line).text);
    }
    return lines;
}

std::string_view allocationPhaseName(AllocationPhase phase) {
    switch (phase) {
    case AllocationPhase::Unknown:
        return "unknown";
    case AllocationPhase::ModelLoad:
        return "model weights";
    case AllocationPhase::Output:
        return "output buffer";
    case AllocationPhase::KvCache:
        return "KV cache";
    case AllocationPhase::RecurrentState:
        return "recurrent state";
    case AllocationPhase::Compute:
        return "compute buffers";
    case AllocationPhase::Runtime:
        return "during generation";
    }
    return "unknown";
}

std::optional<AllocationFailure> findAllocationFailure(std::string_view log, bool wasReady,
                                                       std::vector<std::string>* evidence) {
    const std::vector<std::string_view> lines = splitLogLines(log);
    std::optional<AllocationFailure> failure;
    std::size_t firstLine = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        AllocationFailure candidate = failure.value_or(AllocationFailure{});
        const std::optional<std::uint64_t> sizeBefore = candidate.failedBytes;
        if (allocationLine(lines[i], candidate)) {
            if (!failure) {
                firstLine = i;
            } else if (sizeBefore && failure->exactBytes && !candidate.exactBytes) {
                candidate.failedBytes = sizeBefore; // keep the exact figure over a rounded one
                candidate.exactBytes = true;
            }
            failure = candidate;
            if (evidence != nullptr) {
                evidence->emplace_back(lines[i]);
            }
        } else if (failure && failure->phase == AllocationPhase::Unknown) {
            const AllocationPhase marked = phaseMarker(lines[i]);
            if (marked != AllocationPhase::Unknown) {
                failure->phase = marked;
                if (evidence != nullptr) {
                    evidence->emplace_back(lines[i]);
                }
            }
        }
    }
    if (failure && failure->phase == AllocationPhase::Unknown) {
        failure->phase = wasReady ? AllocationPhase::Runtime : phaseFromProgress(lines, firstLine);
    }
    return failure;
}

} // namespace llamafit
