#pragma once
// JsonLog: llama-server's `--log-jsonl` output (llama.cpp b11669, common/log.cpp and
// common/fit.cpp), one JSON object per line:
//   {"type":"log","time":N,"level":"info","msg":"...\n"}          every log line
//   {"type":"fit_memory_breakdown","data":{"unit":"MiB","rows":[...]}}
//                                  after fitting (the projection) and again at exit (actual)
// The msg fields are joined into plainLog so parseAllocationLog() (allocationlog.h) reads the
// buffer lines as it does from a text log. Used by the launch rig and the app's
// "predicted vs actual" view. Qt-free; parsing is a pure function of the text.
//
// Units: the breakdown is whole MiB as llama.cpp prints it ("unit":"MiB"; names end in MiB).
// A line that is not one of the shapes above is kept in malformedLines, never fatal: a
// crashing server can cut its last line short, and stderr noise can land in the stream.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// The "kind" of a breakdown row: a GPU/accelerator, the host, or an extra host buffer type
// (e.g. CPU_REPACK). Unknown keeps rows of a newer build readable.
enum class BreakdownRowKind { Device, Host, BufferType, Unknown };

struct FitMemoryBreakdownRow {
    BreakdownRowKind kind = BreakdownRowKind::Unknown;
    std::string kindName;    // the "kind" string as written ("device", "host", "buffer_type", ...)
    std::string name;        // "CUDA0", "Host", "CPU_REPACK"
    std::string description; // device rows only: "NVIDIA GeForce RTX 4090"
    // Device rows carry total, free and unaccounted; host and buffer-type rows do not.
    std::optional<std::int64_t> totalMiB;
    std::optional<std::int64_t> freeMiB;
    std::optional<std::int64_t> selfMiB;
    std::optional<std::int64_t> modelMiB;
    std::optional<std::int64_t> contextMiB;
    std::optional<std::int64_t> computeMiB;
    std::optional<std::int64_t> unaccountedMiB;
    bool operator==(const FitMemoryBreakdownRow&) const = default;
};

struct FitMemoryBreakdown {
    std::string unit; // "MiB" in 0.7.0
    std::vector<FitMemoryBreakdownRow> rows;
    bool operator==(const FitMemoryBreakdown&) const = default;
};

struct JsonLog {
    std::string plainLog; // the msg fields in order (each already ends in '\n')
    // In log order: [0] the projection after fitting, [1] the actual at exit when present.
    std::vector<FitMemoryBreakdown> breakdowns;
    std::vector<std::string> malformedLines; // verbatim, without the line break
    bool operator==(const JsonLog&) const = default;
};

// Blank lines and objects of an unknown "type" are skipped (newer builds may add types).
JsonLog parseJsonLog(std::string_view text);

} // namespace llamafit
