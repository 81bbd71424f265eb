#pragma once
// LogLevelClassifier: the severity of each llama-server log line, for the live view's log
// filter (LogPanel). Lines are fed in log order; the classifier remembers the previous line's
// level because llama.cpp prints multi-line messages (a chat template, a JSON dump) with the
// level prefix on the first line only. Pure, no I/O.
// Thread: any (one instance per log). Units: none.

#include <QString>

namespace llamafit {

// In increasing severity; the filter shows lines at or above a chosen level.
enum class LogLevel { Debug, Info, Warning, Error };

class LogLevelClassifier {
  public:
    LogLevel classify(const QString& line);
    // Forget what was seen (a new server run).
    void reset();

  private:
    bool m_sawPrefix = false; // the log carries "<time> <level> " prefixes (not --no-log-prefix)
    LogLevel m_previous = LogLevel::Info;
};

} // namespace llamafit
