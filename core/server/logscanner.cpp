#include "core/server/logscanner.h"

#include <charconv>

namespace llamafit {

LogLine stripLogPrefix(std::string_view line) {
    LogLine result{line, '\0'};
    // common/log.cpp prints the timestamp as "%d.%02d.%03d.%03d " (digits and dots).
    if (!line.empty() && line.front() >= '0' && line.front() <= '9') {
        const auto space = line.find(' ');
        if (space != std::string_view::npos &&
            line.substr(0, space).find_first_not_of("0123456789.") == std::string_view::npos) {
            line.remove_prefix(space + 1);
        }
    }
    // Then one level letter and a space (common/log.cpp: I, W, E, D for debug, T for trace).
    if (line.size() >= 2 && line[1] == ' ' &&
        std::string_view("IWEDT").find(line[0]) != std::string_view::npos) {
        result.level = line[0];
        line.remove_prefix(2);
    }
    result.text = line;
    return result;
}

void LogScanner::skipSpaces() {
    while (!m_rest.empty() && m_rest.front() == ' ') {
        m_rest.remove_prefix(1);
    }
}

bool LogScanner::literal(std::string_view text) {
    std::string_view rest = m_rest;
    while (!rest.empty() && rest.front() == ' ' && (text.empty() || text.front() != ' ')) {
        rest.remove_prefix(1);
    }
    if (rest.substr(0, text.size()) != text) {
        return false;
    }
    m_rest = rest.substr(text.size());
    return true;
}

bool LogScanner::word(std::string& out, char stop) {
    skipSpaces();
    std::size_t n = 0;
    while (n < m_rest.size() && m_rest[n] != ' ' && m_rest[n] != stop) {
        ++n;
    }
    if (n == 0) {
        return false;
    }
    out.assign(m_rest.substr(0, n));
    m_rest.remove_prefix(n);
    return true;
}

bool LogScanner::unsignedNumber(std::uint32_t& out) {
    skipSpaces();
    std::uint32_t value = 0;
    const auto [end, ec] = std::from_chars(m_rest.data(), m_rest.data() + m_rest.size(), value);
    if (ec != std::errc{} || end == m_rest.data()) {
        return false;
    }
    out = value;
    m_rest.remove_prefix(static_cast<std::size_t>(end - m_rest.data()));
    return true;
}

bool LogScanner::signedNumber(std::int64_t& out) {
    skipSpaces();
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(m_rest.data(), m_rest.data() + m_rest.size(), value);
    if (ec != std::errc{} || end == m_rest.data()) {
        return false;
    }
    out = value;
    m_rest.remove_prefix(static_cast<std::size_t>(end - m_rest.data()));
    return true;
}

bool LogScanner::decimal(double& out) {
    skipSpaces();
    double value = 0;
    const auto [end, ec] =
        std::from_chars(m_rest.data(), m_rest.data() + m_rest.size(), value, std::chars_format::fixed);
    if (ec != std::errc{} || end == m_rest.data()) {
        return false;
    }
    out = value;
    m_rest.remove_prefix(static_cast<std::size_t>(end - m_rest.data()));
    return true;
}

std::optional<LogScanner> LogScanner::after(std::string_view line, std::string_view marker) {
    const std::size_t at = line.find(marker);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    return LogScanner(line.substr(at + marker.size()));
}

} // namespace llamafit
