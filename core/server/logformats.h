#pragma once
// The printf formats of llama.cpp's allocation log lines, one matcher each, for the
// allocation-log parser (allocationlog.cpp). Each takes the text after the function-name
// prefix ("llama_kv_cache:") and returns false when the line does not have that format.
// Internal to core/server; sizes in MiB as printed.

#include "core/server/allocationlog.h"
#include "core/server/logscanner.h"

#include <optional>
#include <string>
#include <string_view>

namespace llamafit::logformats {

bool startsWith(std::string_view text, std::string_view prefix);
bool endsWith(std::string_view text, std::string_view suffix);
bool contains(std::string_view text, std::string_view part);

// "<BUF> <what> buffer size = <X> MiB" (model, output, KV, RS, compute lines).
bool bufferLine(LogScanner s, std::string_view what, std::string& buffer, double& mib);
// "size = ... (cells, layers, seqs), K (...): ..., V (...): ..." of llama_kv_cache.
bool kvSizeLine(LogScanner s, LoggedKvCache& kv);
// "size = ... (cells, layers, seqs rs_seq), R (...): ..., S (...): ...[, P (...): ...]" of
// llama_memory_recurrent.
bool rsSizeLine(LogScanner s, LoggedRecurrentState& rs);
// "|   - NAME | numbers |" of common_memory_breakdown_print.
bool breakdownRow(std::string_view text, MemoryBreakdownRow& row);
// "<key> = <value>" of the llama_context constructor; the first known key creates the context.
void contextValue(std::string_view text, std::optional<LoggedContext>& context);

} // namespace llamafit::logformats
