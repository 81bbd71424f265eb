#pragma once
// BoundedLog: a llama-server log kept in fixed memory. Holds, in log order,
//   - the head: the first lines of startup, verbatim (version, devices, model metadata),
//   - the diagnostic lines after the head: every line the diagnosis and the predicted-versus-
//     actual comparison read (buffer and allocation lines, context values, out-of-memory and
//     error lines; isDiagnosticLogLine), up to their own budget,
//   - a ring of the most recent output.
// Everything else is counted and dropped; text() marks each gap with one line. A log that
// never exceeded the head and the ring comes back byte for byte. A server at -lv 4 over a
// day therefore costs at most kBoundedLogCapBytes, and what allocationlog.h, allocationfailure.h and
// launchfailure.h read is still there.
// Used by core/system's ServerProcess (the child's stdout+stderr); Qt-free, one thread.
// Units: bytes; a line's cost is its text plus a fixed per-line bookkeeping allowance.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// Whether a line (with or without the "<time> <level> " prefix) is one that the allocation
// log parser, the allocation-failure finder or the launch-failure classifier reads.
bool isDiagnosticLogLine(std::string_view line);

// The budgets of a BoundedLog, in bytes.
struct BoundedLogLimits {
    std::size_t headBytes = 512 * 1024;        // startup, verbatim
    std::size_t diagnosticBytes = 1536 * 1024; // diagnostic lines after the head
    std::size_t recentBytes = 1984 * 1024;     // the ring of recent output
    std::size_t lineBytes = 64 * 1024;         // a longer line keeps its first lineBytes
    constexpr std::size_t capBytes() const { return headBytes + diagnosticBytes + recentBytes + lineBytes; }
};

// The memory a ServerProcess's log may take: 4 MiB. A server's whole startup (a few hundred
// lines, ~50 KiB at -lv 4) fits in the head ten times over; the ring holds the last ~15000
// lines of a busy -lv 4 server, the diagnostic budget ~12000 buffer and error lines.
inline constexpr std::size_t kBoundedLogCapBytes = BoundedLogLimits{}.capBytes();

class BoundedLog {
  public:
    // Bookkeeping counted per stored line (string and index), so that a flood of short lines
    // cannot exceed the cap either.
    static constexpr std::size_t kLineOverheadBytes = 48;

    BoundedLog() = default;
    explicit BoundedLog(const BoundedLogLimits& limits) : m_limits(limits) {}

    // Appends raw output (split into chunks anyhow). `onLine` sees each completed line as
    // stored (its first lineBytes), without its '\n' and '\r'.
    void append(std::string_view chunk, const std::function<void(std::string_view line)>& onLine = {});
    void clear();

    // The retained log in order, lines joined by '\n', the unfinished last line at the end.
    // A gap reads "[llamafit: N lines of llama-server output not kept (bounded log)]".
    std::string text() const;
    // The unfinished last line (no '\n' yet), as stored.
    std::string_view pendingLine() const { return m_pending; }

    std::size_t storedBytes() const; // what the store costs now, at most limits().capBytes()
    std::uint64_t receivedBytes() const { return m_receivedBytes; }
    std::uint64_t droppedBytes() const { return m_droppedBytes; }
    const BoundedLogLimits& limits() const { return m_limits; }

  private:
    struct Line {
        std::uint64_t number = 0; // 0-based line number in the whole log
        std::string text;
    };
    void addLine(std::string text, std::uint64_t fullBytes);
    static std::size_t cost(const Line& line) { return line.text.size() + kLineOverheadBytes; }

    BoundedLogLimits m_limits;
    std::vector<Line> m_head;
    std::vector<Line> m_diagnostic;
    std::deque<Line> m_recent;
    std::size_t m_headBytes = 0;
    std::size_t m_diagnosticBytes = 0;
    std::size_t m_recentBytes = 0;
    std::string m_pending;            // the line in progress, at most lineBytes
    std::uint64_t m_pendingBytes = 0; // its length as received
    std::uint64_t m_lineCount = 0;
    std::uint64_t m_receivedBytes = 0;
    std::uint64_t m_droppedBytes = 0; // of complete lines no longer (or never) stored
    bool m_headFull = false;
};

} // namespace llamafit
