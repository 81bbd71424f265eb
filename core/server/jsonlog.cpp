#include "core/server/jsonlog.h"

#include <nlohmann/json.hpp>

namespace llamafit {

namespace {

using nlohmann::json;

BreakdownRowKind rowKind(std::string_view kind) {
    if (kind == "device") {
        return BreakdownRowKind::Device;
    }
    if (kind == "host") {
        return BreakdownRowKind::Host;
    }
    if (kind == "buffer_type") {
        return BreakdownRowKind::BufferType;
    }
    return BreakdownRowKind::Unknown;
}

// An absent or null field stays empty; a present non-number makes the row (and so the line)
// malformed, because a silently missing size would draw a wrong chart.
bool readMiB(const json& row, const char* key, std::optional<std::int64_t>& out) {
    const auto it = row.find(key);
    if (it == row.end() || it->is_null()) {
        return true;
    }
    if (it->is_number_integer()) {
        out = it->get<std::int64_t>();
        return true;
    }
    if (it->is_number_float()) {
        // llama.cpp common/fit.cpp writes whole MiB; truncate as its text table does.
        out = static_cast<std::int64_t>(it->get<double>());
        return true;
    }
    return false;
}

bool readString(const json& row, const char* key, std::string& out) {
    const auto it = row.find(key);
    if (it == row.end() || it->is_null()) {
        return true;
    }
    if (!it->is_string()) {
        return false;
    }
    out = it->get<std::string>();
    return true;
}

std::optional<FitMemoryBreakdownRow> readRow(const json& row) {
    if (!row.is_object()) {
        return std::nullopt;
    }
    FitMemoryBreakdownRow out;
    const bool ok = readString(row, "kind", out.kindName) && readString(row, "name", out.name) &&
                    readString(row, "description", out.description) && readMiB(row, "total", out.totalMiB) &&
                    readMiB(row, "free", out.freeMiB) && readMiB(row, "self", out.selfMiB) &&
                    readMiB(row, "model", out.modelMiB) && readMiB(row, "context", out.contextMiB) &&
                    readMiB(row, "compute", out.computeMiB) &&
                    readMiB(row, "unaccounted", out.unaccountedMiB);
    if (!ok) {
        return std::nullopt;
    }
    out.kind = rowKind(out.kindName);
    return out;
}

std::optional<FitMemoryBreakdown> readBreakdown(const json& object) {
    const auto data = object.find("data");
    if (data == object.end() || !data->is_object()) {
        return std::nullopt;
    }
    const auto rows = data->find("rows");
    if (rows == data->end() || !rows->is_array()) {
        return std::nullopt;
    }
    FitMemoryBreakdown out;
    if (!readString(*data, "unit", out.unit)) {
        return std::nullopt;
    }
    for (const json& row : *rows) {
        auto parsed = readRow(row);
        if (!parsed) {
            return std::nullopt;
        }
        out.rows.push_back(std::move(*parsed));
    }
    return out;
}

// Returns false when the line is not a well-formed record of a known type.
bool readLine(std::string_view line, JsonLog& log) {
    // Every --log-jsonl record is one JSON object. Anything else is refused before the parser,
    // which builds a whole error message for each line it rejects (most of the time a plain
    // log's lines took).
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos || line[first] != '{') {
        return false;
    }
    const json object = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (object.is_discarded() || !object.is_object()) {
        return false;
    }
    const auto type = object.find("type");
    if (type == object.end() || !type->is_string()) {
        return false;
    }
    const std::string& typeName = type->get_ref<const std::string&>();
    if (typeName == "log") {
        const auto msg = object.find("msg");
        if (msg == object.end() || !msg->is_string()) {
            return false;
        }
        log.plainLog += msg->get_ref<const std::string&>();
        return true;
    }
    if (typeName == "fit_memory_breakdown") {
        auto breakdown = readBreakdown(object);
        if (!breakdown) {
            return false;
        }
        log.breakdowns.push_back(std::move(*breakdown));
        return true;
    }
    return true; // a type this build does not know: skipped, not malformed
}

bool isBlank(std::string_view line) {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

} // namespace

JsonLog parseJsonLog(std::string_view text) {
    JsonLog log;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (isBlank(line)) {
            continue;
        }
        if (!readLine(line, log)) {
            log.malformedLines.emplace_back(line);
        }
    }
    return log;
}

} // namespace llamafit
