#pragma once
// llama.cpp's own projection next to LlamaFit's, per device: the first
// common_memory_breakdown_print table of a run (llama-fit-params --fit-print on, or llama-server's
// startup fit at -lv 4; parsed by allocationlog.h, the one parser of that table) against
// fitProjection() of LlamaFit's estimate for the same settings. A build newer than the rules
// LlamaFit follows shows up as a device whose two figures differ by more than 1 %. Used by
// `llamafit-cli estimate --verify` and the launch panel's background check
// (ui/launch/projectioncrosscheck.h). Pure functions. Units: whole MiB, as llama.cpp prints them.

#include "core/common/result.h"
#include "core/server/allocationlog.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct ProjectionCheckRow {
    std::string device;           // "Vulkan0", "Host"
    std::int64_t llamaCppMiB = 0; // the table's self = model + context + compute
    std::int64_t llamaFitMiB = 0; // fitProjection(), truncated to MiB like llama.cpp's
    double differencePercent = 0; // (LlamaFit - llama.cpp) / llama.cpp * 100; 0 when both are 0
    bool differs = false;         // more than kProjectionTolerancePercent apart
    bool operator==(const ProjectionCheckRow&) const = default;
};

inline constexpr double kProjectionTolerancePercent = 1.0;

// One row per device row of `table` (in order, matched by position to the GPU entries of
// `projectionBytes`) and one for its Host row (the last entry). Buffer-type rows such as
// CPU_REPACK are skipped: fit counts them nowhere. A table with more device rows than
// `projectionBytes` has GPUs compares the extra rows with 0.
std::vector<ProjectionCheckRow> compareProjections(const std::vector<MemoryBreakdownRow>& table,
                                                   const std::vector<std::uint64_t>& projectionBytes);

// The arguments that make llama-fit-params print llama.cpp's projection of `settings` for the model
// at `modelPath` (its memory flags; -kvu/-no-kvu are llama-server's own), at -lv 4.
std::vector<std::string> projectionToolArgs(const std::string& modelPath, const ServerSettings& settings);

// The settings whose estimate stands next to that projection: what llama-fit-params measures
// (fitreplica.h fitMeasuredSettings).
ServerSettings projectionSettings(const ServerSettings& settings);

// llama-fit-params' stdout with --fit-print on: one "NAME MODEL CONTEXT COMPUTE" line (whole MiB)
// per device, then "Host ...", as breakdown rows (self = the sum; a device row gets free = 0 so it
// reads as one). The same figures as the log's breakdown table, but printf'ed: they survive a
// run whose last log lines are lost. common/log.cpp writes the log from a worker thread that the
// tool's exit can cut short; measured on 0.7.0 under load (two runs at a time beside two busy
// cores, tiny model), 29 runs of 120 ended their stderr before the table or right after its header.
std::vector<MemoryBreakdownRow> parseProjectionPrint(std::string_view toolStdout);

// The tool's projection against `estimate` (of projectionSettings()): the breakdown table of its
// log (stderr) when the log holds the whole table (down to its Host row), else the lines of its
// stdout; "verify.no-table" when neither holds a whole one.
Result<std::vector<ProjectionCheckRow>>
checkProjection(std::string_view toolLog, const MemoryEstimate& estimate, std::string_view toolStdout = {});

// "b11669" from a `--version` line "version: 0.7.0 (build 11669, commit Debian)"; nullopt if absent.
std::optional<std::string> buildTag(std::string_view versionText);

} // namespace llamafit
