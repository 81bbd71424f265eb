#include "core/server/boundedlog.h"

#include "core/server/logformats.h"
#include "core/server/logscanner.h"

#include <algorithm>
#include <array>
#include <utility>

namespace llamafit {

namespace {

using logformats::contains;
using logformats::startsWith;

// The functions whose lines allocationlog.cpp parses (buffer sizes, context values, KV/RS
// sizes, fused ops, scheduler reserve, memory breakdown tables): src/llama-model.cpp
// load_tensors, src/llama-context.cpp, src/llama-kv-cache*.cpp, src/llama-memory-recurrent.cpp,
// common/common.cpp common_memory_breakdown_print.
constexpr std::array kAllocationFunctions{
    std::string_view("load_tensors:"),      std::string_view("llama_context:"),
    std::string_view("llama_kv_cache"),     std::string_view("llama_memory_recurrent:"),
    std::string_view("resolve_fused_ops:"), std::string_view("sched_reserve:"),
    std::string_view("graph_reserve:"),     std::string_view("common_memory_breakdown_print:"),
};

// What allocationfailure.cpp and launchfailure.cpp look for in lines printed without the
// error level (--no-log-prefix, or ggml's own fprintf): ggml's out-of-memory lines, the
// follow-up "failed to allocate ..." / "unable to allocate" markers, common/arg.cpp's "error:"
// lines, gguf.cpp's "invalid magic", tools/server's bind error and its "listening on"; and
// common/common.cpp's start lines ("cmn  common_param:"), which list the devices with the memory
// each reports -- an RPC host's only record (rpchostusage.h).
constexpr std::array kDiagnosticParts{
    std::string_view("error"),           std::string_view("failed"),
    std::string_view("unable to"),       std::string_view("insufficient memory"),
    std::string_view("out of memory"),   std::string_view("OutOfDeviceMemory"),
    std::string_view("couldn't bind"),   std::string_view("invalid"),
    std::string_view("gguf_init_from_"), std::string_view("Unsupported cache type"),
    std::string_view("listening on"),    std::string_view("common_param:"),
};

} // namespace

bool isDiagnosticLogLine(std::string_view raw) {
    const LogLine line = stripLogPrefix(raw);
    // common/log.cpp: 'E' and 'W' are llama.cpp's error and warning levels.
    if (line.level == 'E' || line.level == 'W') {
        return true;
    }
    return std::any_of(kAllocationFunctions.begin(), kAllocationFunctions.end(),
                       [&](std::string_view prefix) { return startsWith(line.text, prefix); }) ||
           std::any_of(kDiagnosticParts.begin(), kDiagnosticParts.end(),
                       [&](std::string_view part) { return contains(line.text, part); });
}

void BoundedLog::append(std::string_view chunk, const std::function<void(std::string_view line)>& onLine) {
    m_receivedBytes += chunk.size();
    while (!chunk.empty()) {
        const std::size_t newline = chunk.find('\n');
        const std::string_view piece = chunk.substr(0, newline);
        const std::size_t room = m_limits.lineBytes - std::min(m_limits.lineBytes, m_pending.size());
        m_pending.append(piece.substr(0, std::min(room, piece.size())));
        m_pendingBytes += piece.size();
        if (newline == std::string_view::npos) {
            return;
        }
        chunk.remove_prefix(newline + 1);
        if (onLine) {
            std::string_view text = m_pending;
            if (!text.empty() && text.back() == '\r') {
                text.remove_suffix(1);
            }
            onLine(text);
        }
        addLine(std::exchange(m_pending, {}), std::exchange(m_pendingBytes, 0));
    }
}

void BoundedLog::addLine(std::string text, std::uint64_t fullBytes) {
    Line line{m_lineCount++, std::move(text)};
    m_droppedBytes += fullBytes - line.text.size(); // the cut end of an over-long line
    if (!m_headFull) {
        if (m_headBytes + cost(line) <= m_limits.headBytes) {
            m_headBytes += cost(line);
            m_head.push_back(std::move(line));
            return;
        }
        m_headFull = true; // the head stays one unbroken run of first lines
    }
    m_recentBytes += cost(line);
    m_recent.push_back(std::move(line));
    // Lines leave the ring in order, so the diagnostic lines stay in order too.
    while (m_recentBytes > m_limits.recentBytes) {
        Line& oldest = m_recent.front();
        m_recentBytes -= cost(oldest);
        if (m_diagnosticBytes + cost(oldest) <= m_limits.diagnosticBytes &&
            isDiagnosticLogLine(oldest.text)) {
            m_diagnosticBytes += cost(oldest);
            m_diagnostic.push_back(std::move(oldest));
        } else {
            m_droppedBytes += oldest.text.size() + 1;
        }
        m_recent.pop_front();
    }
}

void BoundedLog::clear() {
    *this = BoundedLog(m_limits);
}

std::string BoundedLog::text() const {
    std::string text;
    text.reserve(m_headBytes + m_diagnosticBytes + m_recentBytes + m_pending.size());
    std::uint64_t next = 0; // the line number that follows without a gap
    const auto gapTo = [&](std::uint64_t number) {
        if (number != next) {
            text += "[llamafit: " + std::to_string(number - next) +
                    " lines of llama-server output not kept (bounded log)]\n";
        }
        next = number;
    };
    const auto add = [&](const Line& line) {
        gapTo(line.number);
        text += line.text;
        text += '\n';
        next = line.number + 1;
    };
    std::for_each(m_head.begin(), m_head.end(), add);
    std::for_each(m_diagnostic.begin(), m_diagnostic.end(), add);
    std::for_each(m_recent.begin(), m_recent.end(), add);
    gapTo(m_lineCount); // with a ring smaller than one line, even the newest may be gone
    text += m_pending;
    return text;
}

std::size_t BoundedLog::storedBytes() const {
    return m_headBytes + m_diagnosticBytes + m_recentBytes + m_pending.size();
}

} // namespace llamafit
