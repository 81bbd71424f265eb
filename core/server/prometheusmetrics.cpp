#include "core/server/prometheusmetrics.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <utility>

namespace llamafit {

namespace {

// The exposition format (prometheus.io "Exposition formats"): "name{labels} value [timestamp]";
// '#' lines are HELP/TYPE comments. The value may be NaN, +Inf or -Inf.
bool parseValue(std::string_view text, double& out) {
    if (text == "NaN") {
        out = std::numeric_limits<double>::quiet_NaN();
        return true;
    }
    if (text == "+Inf" || text == "Inf") {
        out = std::numeric_limits<double>::infinity();
        return true;
    }
    if (text == "-Inf") {
        out = -std::numeric_limits<double>::infinity();
        return true;
    }
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size()) {
        return false;
    }
    out = value;
    return true;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '\r')) {
        text.remove_prefix(1);
    }
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    return text;
}

using Field = double ServerMetrics::*;
constexpr std::array<std::pair<std::string_view, Field>, 15> kFields{{
    {"llamacpp:prompt_tokens_total", &ServerMetrics::promptTokensTotal},
    {"llamacpp:prompt_tokens_cached_total", &ServerMetrics::promptTokensCachedTotal},
    {"llamacpp:prompt_seconds_total", &ServerMetrics::promptSecondsTotal},
    {"llamacpp:tokens_predicted_total", &ServerMetrics::tokensPredictedTotal},
    {"llamacpp:tokens_predicted_seconds_total", &ServerMetrics::tokensPredictedSecondsTotal},
    {"llamacpp:n_decode_total", &ServerMetrics::decodeCallsTotal},
    {"llamacpp:n_tokens_max", &ServerMetrics::tokensMax},
    {"llamacpp:spec_decode_num_draft_tokens_total", &ServerMetrics::draftTokensTotal},
    {"llamacpp:spec_decode_num_accepted_tokens_total", &ServerMetrics::draftTokensAcceptedTotal},
    {"llamacpp:spec_decode_num_drafts_total", &ServerMetrics::draftsTotal},
    {"llamacpp:prompt_tokens_seconds", &ServerMetrics::promptTokensPerSecond},
    {"llamacpp:predicted_tokens_seconds", &ServerMetrics::predictedTokensPerSecond},
    {"llamacpp:requests_processing", &ServerMetrics::requestsProcessing},
    {"llamacpp:requests_deferred", &ServerMetrics::requestsDeferred},
    {"llamacpp:n_busy_slots_per_decode", &ServerMetrics::busySlotsPerDecode},
}};

} // namespace

Result<ServerMetrics> parsePrometheusMetrics(std::string_view text) {
    ServerMetrics metrics;
    std::size_t lineNumber = 0;
    while (!text.empty()) {
        const std::size_t newline = text.find('\n');
        const std::string_view raw = text.substr(0, newline);
        text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
        ++lineNumber;
        const std::string_view line = trim(raw);
        if (line.empty() || line.front() == '#') {
            continue;
        }
        // The name ends at '{' (labels, which may hold spaces inside quotes) or at a space.
        std::size_t nameEnd = line.find_first_of("{ \t");
        if (nameEnd != std::string_view::npos && line[nameEnd] == '{') {
            const std::size_t close = line.find('}', nameEnd);
            nameEnd = close == std::string_view::npos ? std::string_view::npos : close + 1;
        }
        if (nameEnd == std::string_view::npos || nameEnd >= line.size()) {
            return makeError("server.bad-metrics", "/metrics line " + std::to_string(lineNumber) +
                                                       " has no value: '" + std::string(line) + "'");
        }
        const std::string_view name = line.substr(0, nameEnd);
        std::string_view valueText = trim(line.substr(nameEnd));
        valueText = valueText.substr(0, valueText.find_first_of(" \t")); // drop an optional timestamp
        double value = 0;
        if (!parseValue(valueText, value)) {
            return makeError("server.bad-metrics", "/metrics line " + std::to_string(lineNumber) +
                                                       " has no numeric value: '" + std::string(line) + "'");
        }
        metrics.samples[std::string(name)] = value;
        for (const auto& [known, field] : kFields) {
            if (known == name) {
                metrics.*field = value;
            }
        }
    }
    return metrics;
}

} // namespace llamafit
