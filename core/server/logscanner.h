#pragma once
// LogScanner: a cursor over one llama-server log line, used by the allocation-log parser
// to match llama.cpp's printf formats piece by piece ("%8.2f MiB", "%6u cells", ...).
// Every method returns false (and leaves the result untouched) when the text does not
// match, so a parser is a chain of && that fails as a whole. Also strips the optional
// "<time> <level> " prefix that --log-prefix / --log-timestamps add. Qt-free.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llamafit {

// One log line without its prefix. `level` is 'I', 'W', 'E', 'D' or 'T' when the line had
// a level marker, else '\0' (--no-log-prefix).
struct LogLine {
    std::string_view text;
    char level = '\0';
};

// "0.00.186.930 I llama_context: ..." -> {"llama_context: ...", 'I'}; a line without a
// prefix is returned as is.
LogLine stripLogPrefix(std::string_view line);

class LogScanner {
  public:
    explicit LogScanner(std::string_view text) : m_rest(text) {}
    // Scans from just after the first occurrence of `marker` in `line`; nullopt without one.
    static std::optional<LogScanner> after(std::string_view line, std::string_view marker);

    std::string_view rest() const { return m_rest; }
    bool atEnd() const { return m_rest.empty(); }

    void skipSpaces();
    // Skips spaces, then matches `text` exactly (printf padding comes before values, so
    // literals are matched after any run of spaces).
    bool literal(std::string_view text);
    // A run of characters other than space and `stop` (after leading spaces).
    bool word(std::string& out, char stop = ' ');
    bool unsignedNumber(std::uint32_t& out);
    bool signedNumber(std::int64_t& out);
    bool decimal(double& out);

  private:
    std::string_view m_rest;
};

} // namespace llamafit
