#pragma once
// AllocationLog: what llama-server actually allocated, read from its `-lv 4` text log
// (the buffer-size lines of llama.cpp's loader, context, KV cache, recurrent state and
// scheduler, the resolved context values and the memory-breakdown tables). Used by the
// integration rig to check estimateMemory() against the real server, and later by the
// app to draw "predicted vs actual". Qt-free, standard library only; parsing is a pure
// function of the text.
//
// Units: llama.cpp prints buffer sizes in MiB with two decimals, so every size here is a
// double in MiB (names end in MiB); breakdown tables are whole MiB (truncated by llama.cpp).
//
// Accepted line shapes (llama.cpp b11669, with or without the "<time> <level> " prefix of
// --log-prefix/--log-timestamps):
//   common_param:   - %s : %s (%zu MiB, %zu MiB free)                 (the device list, at start)
//   load_tensors: %12s model buffer size = %8.2f MiB                 (repeats: summed per buffer type)
//   load_tensors: offloaded %d/%d layers to GPU
//   llama_adapter_lora_init_impl: %s LoRA buffer size = %8.2f MiB      (one per adapter and buffer type)
//   common_speculative_init_result: creating MTP draft context ...  (the next context lines are its)
//   llama_context: n_ctx = %u  (also n_ctx_seq, n_seq_max, n_batch, n_ubatch, n_rs_seq, n_outputs_max,
//                               kv_unified = true|false, flash_attn = auto|enabled|disabled)
//   llama_context: %10s  output buffer size = %8.2f MiB
//   llama_context: %10s compute buffer size = %8.2f MiB   (builds before sched_reserve printed it)
//   llama_kv_cache_iswa: creating non-SWA KV cache, size = %u cells  /  creating     SWA KV cache, ...
//   llama_kv_cache: %10s KV buffer size = %8.2f MiB
//   llama_kv_cache: size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs), K (%s): %7.2f MiB, V (%s): %7.2f
//   MiB llama_memory_recurrent: %10s RS buffer size = %8.2f MiB llama_memory_recurrent: size = %7.2f MiB (%6u
//   cells, %3d layers, %2u seqs %2u rs_seq), R (%s): ..., S (%s): ...[, P (%s): ...] resolve_fused_ops: Flash
//   Attention enabled|disabled sched_reserve: %10s compute buffer size = %8.2f MiB                (a later
//   reserve replaces the size) sched_reserve: reserve took ...                                    (allocation
//   is complete) common_memory_breakdown_print: | ... |                             (one table per print) srv
//   llama_server: listening on http://...                         (server ready)
//
// Error codes: server.malformed-line (a line that starts like one of the above but does not
// parse; the message quotes it with its line number).

#include "core/common/result.h"
#include "core/server/devicelist.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// The llama_context values llama.cpp prints after resolving the context (src/llama-context.cpp).
struct LoggedContext {
    std::uint32_t nCtx = 0;
    std::uint32_t nCtxSeq = 0;
    std::uint32_t nSeqMax = 0;
    std::uint32_t nBatch = 0;
    std::uint32_t nUbatch = 0;
    std::uint32_t nRsSeq = 0;
    std::uint32_t nOutputsMax = 0;
    bool kvUnified = false;
    std::string flashAttnRequested;           // "auto", "enabled" or "disabled" (the -fa value)
    std::optional<bool> flashAttentionActive; // from "resolve_fused_ops: Flash Attention ...", when printed
    // Whether FA ran: the resolved value, else the request (-fa off prints no resolve line).
    bool flashAttention() const { return flashAttentionActive.value_or(flashAttnRequested == "enabled"); }
    bool operator==(const LoggedContext&) const = default;
};

// One "llama_kv_cache: size = ..." line with the buffer lines that came before it.
struct LoggedKvCache {
    bool swa = false;                            // announced by "creating SWA KV cache"
    std::optional<std::uint32_t> announcedCells; // the iSWA "creating ... size = N cells" value
    double sizeMiB = 0;
    std::uint32_t cells = 0; // per stream
    std::uint32_t layers = 0;
    std::uint32_t seqMax = 0;  // n_seq_max
    std::uint32_t streams = 0; // n_stream: 1 when unified
    std::string typeK;         // "f16", "q8_0", ...
    std::string typeV;
    double kMiB = 0;
    double vMiB = 0;
    std::map<std::string, double> bufferMiB; // "CPU" -> 128.00
    bool operator==(const LoggedKvCache&) const = default;
};

// The "llama_memory_recurrent: size = ..." line (its "layers" is n_layer, not the recurrent count).
struct LoggedRecurrentState {
    double sizeMiB = 0;
    std::uint32_t cells = 0;
    std::uint32_t layers = 0;
    std::uint32_t seqMax = 0;
    std::uint32_t rsSeq = 0;
    std::string typeR;
    std::string typeS;
    std::string typeP; // empty before b11669 (no P column)
    double rMiB = 0;
    double sMiB = 0;
    double pMiB = 0;
    std::map<std::string, double> bufferMiB;
    bool operator==(const LoggedRecurrentState&) const = default;
};

// One row of a common_memory_breakdown_print table (whole MiB). Device rows carry total,
// free and unaccounted; the host row and extra buffer-type rows (e.g. CPU_REPACK) do not.
struct MemoryBreakdownRow {
    std::string name; // "Host", "CPU_REPACK", "CUDA0 (RTX 4090)"
    std::optional<std::int64_t> totalMiB;
    std::optional<std::int64_t> freeMiB;
    std::int64_t selfMiB = 0;
    std::int64_t modelMiB = 0;
    std::int64_t contextMiB = 0;
    std::int64_t computeMiB = 0;
    std::optional<std::int64_t> unaccountedMiB;
    bool operator==(const MemoryBreakdownRow&) const = default;
};

// The Host row comes after every device row (common/fit.cpp, common_memory_breakdown_print): a
// table that has it is whole. A log cut short (llama.cpp writes it from a thread that a tool's exit
// does not wait for) can end right after the header, or inside the device rows.
bool isWholeBreakdownTable(const std::vector<MemoryBreakdownRow>& table);

// Per-device sums of the buffer lines ("CPU" is the host: CPU*, *_Host and BLAS buffers).
struct LoggedDevice {
    std::string name;
    bool host = false;
    double modelMiB = 0;
    double kvMiB = 0;
    double rsMiB = 0;
    double outputMiB = 0;
    double computeMiB = 0;
    double totalMiB() const { return modelMiB + kvMiB + rsMiB + outputMiB + computeMiB; }
    bool operator==(const LoggedDevice&) const = default;
};

// A draft's context: the MTP draft context of --spec-type draft-mtp (every context line after
// "common_speculative_init_result: creating MTP draft context ...") or the draft model of -md
// with its own weights (every line after "common_speculative_init_result: loading draft model").
struct LoggedDraftContext {
    std::map<std::string, double> modelMiB; // the draft model's weights; empty for MTP
    std::map<std::string, std::uint32_t> modelLines;
    std::map<std::string, double> rsMiB; // a recurrent draft model's state; empty for MTP
    std::optional<LoggedContext> context;
    std::map<std::string, double> kvMiB;
    std::map<std::string, double> outputMiB;
    std::map<std::string, double> computeMiB;
    std::vector<LoggedKvCache> kvCaches;
    std::optional<LoggedRecurrentState> recurrentState; // a recurrent draft model's
    bool reserveComplete = false;
    bool operator==(const LoggedDraftContext&) const = default;
};

struct AllocationLog {
    // The devices llama-server lists as it starts, with the memory each reports (common/common.cpp:
    // "common_param:   - RPC0    : 127.0.0.1:50052 (24105 MiB, 24105 MiB free)"): an RPC server's
    // free memory is only ever seen here, on the main host.
    std::vector<ListedDevice> listedDevices;
    // Per buffer type as llama.cpp names it ("CPU_Mapped", "CPU_REPACK", "CUDA0", "CUDA_Host").
    std::map<std::string, double> modelMiB;
    std::map<std::string, std::uint32_t> modelLines; // lines summed into modelMiB (each rounded to 0.01 MiB)
    std::map<std::string, double> kvMiB;             // all KV caches together
    std::map<std::string, double> rsMiB;
    std::map<std::string, double> outputMiB;
    std::map<std::string, double> computeMiB;

    std::optional<LoggedContext> context;
    std::vector<LoggedKvCache> kvCaches; // in log order: non-SWA first for iSWA models
    std::optional<LoggedRecurrentState> recurrentState;
    std::optional<std::uint32_t> offloadedLayers; // "offloaded N/M layers to GPU"
    std::optional<std::uint32_t> offloadableLayers;
    std::vector<std::vector<MemoryBreakdownRow>> breakdownTables; // fit projection (fit on), then exit
    std::optional<LoggedDraftContext> mtpContext;                 // its buffers are not in the maps above
    std::optional<LoggedDraftContext> draftModelContext;          // -md: nor are these
    // "llama_adapter_lora_init_impl: CPU_Mapped LoRA buffer size = N MiB", per buffer type, all
    // adapters together (src/llama-adapter.cpp); counted as model memory by devices().
    std::map<std::string, double> loraMiB;

    bool reserveComplete = false;        // "sched_reserve: reserve took": every buffer line has been printed
    bool listening = false;              // the HTTP server is up
    bool loadFailed = false;             // "exiting due to model loading error"
    std::vector<std::string> errorLines; // error-level lines (level "E"), without the prefix
    // The message of a GGML_ABORT (ggml.c ggml_abort prints "<file>:<line>: <message>" to stderr,
    // with no log prefix), as ggml's scheduler aborts with "pre-allocated tensor (...) in a buffer
    // (...) that cannot run the operation (...)". Empty when the server did not abort.
    std::string abortMessage;

    static double sum(const std::map<std::string, double>& byBufferType);
    // Per-device sums (the MTP draft context's buffers included), host ("CPU") first, then the
    // other devices by name.
    std::vector<LoggedDevice> devices() const;
    bool operator==(const AllocationLog&) const = default;
};

Result<AllocationLog> parseAllocationLog(std::string_view text);

// Cheap check on a growing log: the allocation lines are complete (reserve done), the
// server listens, or loading failed. The test runner stops the server once this is true.
bool allocationLogFinished(std::string_view text);

// The device a buffer type belongs to: "CPU_Mapped" -> "CPU", "CUDA_Host" -> "CPU",
// "BLAS" -> "CPU", "CUDA0" -> "CUDA0", "Vulkan0" -> "Vulkan0".
std::string deviceOfBufferType(std::string_view bufferType);
bool isHostBufferType(std::string_view bufferType);

} // namespace llamafit
