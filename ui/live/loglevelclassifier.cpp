// Severity of llama-server log lines; see loglevelclassifier.h.
#include "ui/live/loglevelclassifier.h"

#include "core/server/logscanner.h"

#include <string>

namespace llamafit {

namespace {

// Without the level prefix (--no-log-prefix) there is no reliable marker, so the level is
// guessed from the words llama.cpp uses in its warning and error messages
// (common/log.h LOG_WRN / LOG_ERR texts such as "failed to ...", "error: ...", "warning: ...").
// A guess can be wrong both ways; with the default prefix the marker decides.
LogLevel levelFromWords(const QString& line) {
    if (line.contains(QStringLiteral("error"), Qt::CaseInsensitive) ||
        line.contains(QStringLiteral("failed"), Qt::CaseInsensitive)) {
        return LogLevel::Error;
    }
    if (line.contains(QStringLiteral("warning"), Qt::CaseInsensitive) ||
        line.contains(QStringLiteral(" W "))) {
        return LogLevel::Warning;
    }
    return LogLevel::Info;
}

} // namespace

LogLevel LogLevelClassifier::classify(const QString& line) {
    const std::string text = line.toStdString();
    // llama.cpp common/log.cpp (common_log_entry::print) writes "<time> <L> " with L one of
    // D (debug), I (info), W (warning), E (error); continuation output (LOG_CNT) has no prefix.
    switch (stripLogPrefix(text).level) {
    case 'D':
    case 'T':
        m_sawPrefix = true;
        m_previous = LogLevel::Debug;
        return m_previous;
    case 'I':
        m_sawPrefix = true;
        m_previous = LogLevel::Info;
        return m_previous;
    case 'W':
        m_sawPrefix = true;
        m_previous = LogLevel::Warning;
        return m_previous;
    case 'E':
        m_sawPrefix = true;
        m_previous = LogLevel::Error;
        return m_previous;
    default:
        break;
    }
    if (m_sawPrefix) {
        return m_previous; // the rest of a multi-line message
    }
    return levelFromWords(line);
}

void LogLevelClassifier::reset() {
    m_sawPrefix = false;
    m_previous = LogLevel::Info;
}

} // namespace llamafit
