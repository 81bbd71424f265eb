#include "core/server/slotsjson.h"

#include <nlohmann/json.hpp>

#include <charconv>

namespace llamafit {

namespace {

using nlohmann::json;

Error badJson(std::string_view what, std::string_view detail) {
    return makeError("server.bad-json", std::string(what) + ": " + std::string(detail));
}

// Reads an optional numeric field; a present field of another type is an error, because a
// silently-zero counter would draw a wrong chart.
template <typename T> bool readNumber(const json& object, const char* key, T& out, std::string& error) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return true;
    }
    if (!it->is_number()) {
        error = std::string("'") + key + "' is not a number";
        return false;
    }
    out = it->get<T>();
    return true;
}

bool readBool(const json& object, const char* key, bool& out, std::string& error) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return true;
    }
    if (!it->is_boolean()) {
        error = std::string("'") + key + "' is not true/false";
        return false;
    }
    out = it->get<bool>();
    return true;
}

bool readString(const json& object, const char* key, std::string& out, std::string& error) {
    const auto it = object.find(key);
    if (it == object.end() || it->is_null()) {
        return true;
    }
    if (!it->is_string()) {
        error = std::string("'") + key + "' is not a string";
        return false;
    }
    out = it->get<std::string>();
    return true;
}

bool readSlot(const json& item, SlotState& slot, std::string& error) {
    if (!item.is_object()) {
        error = "a slot is not an object";
        return false;
    }
    if (!item.contains("id")) {
        error = "a slot has no 'id'";
        return false;
    }
    std::int64_t taskId = -1;
    const bool hasTask = item.contains("id_task");
    if (!readNumber(item, "id", slot.id, error) || !readNumber(item, "n_ctx", slot.nCtx, error) ||
        !readBool(item, "is_processing", slot.isProcessing, error) ||
        !readNumber(item, "id_task", taskId, error) ||
        !readNumber(item, "n_prompt_tokens", slot.promptTokens, error) ||
        !readNumber(item, "n_prompt_tokens_processed", slot.promptTokensProcessed, error) ||
        !readNumber(item, "n_prompt_tokens_cache", slot.promptTokensCached, error)) {
        return false;
    }
    if (hasTask) {
        slot.taskId = taskId;
    }
    const auto next = item.find("next_token");
    if (next == item.end() || next->is_null()) {
        return true;
    }
    // tools/server/server-context.cpp of 0.7.0 prints an array (one entry per sequence of
    // the slot); the README and older builds print the object itself.
    const json* token = &*next;
    if (next->is_array()) {
        if (next->empty()) {
            return true;
        }
        token = &next->front();
    }
    if (!token->is_object()) {
        error = "'next_token' is neither an object nor an array of objects";
        return false;
    }
    return readNumber(*token, "n_decoded", slot.decodedTokens, error) &&
           readNumber(*token, "n_remain", slot.remainingTokens, error) &&
           readBool(*token, "has_next_token", slot.hasNextToken, error);
}

std::optional<json> parse(std::string_view text) {
    json document = json::parse(text.begin(), text.end(), nullptr, false);
    if (document.is_discarded()) {
        return std::nullopt;
    }
    return document;
}

} // namespace

Result<std::vector<SlotState>> parseSlotsJson(std::string_view text) {
    const std::optional<json> document = parse(text);
    if (!document) {
        return badJson("/slots", "not valid JSON");
    }
    if (!document->is_array()) {
        return badJson("/slots", "expected an array of slots");
    }
    std::vector<SlotState> slots;
    slots.reserve(document->size());
    for (const json& item : *document) {
        SlotState slot;
        std::string error;
        if (!readSlot(item, slot, error)) {
            return badJson("/slots slot " + std::to_string(slots.size()), error);
        }
        slots.push_back(slot);
    }
    return slots;
}

Result<ServerProps> parsePropsJson(std::string_view text) {
    const std::optional<json> document = parse(text);
    if (!document) {
        return badJson("/props", "not valid JSON");
    }
    if (!document->is_object()) {
        return badJson("/props", "expected an object");
    }
    ServerProps props;
    std::string error;
    bool ok = readNumber(*document, "total_slots", props.totalSlots, error) &&
              readString(*document, "build_info", props.buildInfo, error) &&
              readString(*document, "model_path", props.modelPath, error) &&
              readString(*document, "model_alias", props.modelAlias, error) &&
              readBool(*document, "endpoint_slots", props.endpointSlots, error) &&
              readBool(*document, "endpoint_metrics", props.endpointMetrics, error) &&
              readBool(*document, "is_sleeping", props.isSleeping, error);
    const auto settings = document->find("default_generation_settings");
    if (ok && settings != document->end() && settings->is_object()) {
        ok = readNumber(*settings, "n_ctx", props.slotContextTokens, error);
    }
    if (!ok) {
        return badJson("/props", error);
    }
    // build_info is "b<number>-<commit or distro>" (common/build-info.cpp.in).
    if (props.buildInfo.size() > 1 && props.buildInfo.front() == 'b') {
        std::uint32_t number = 0;
        const char* begin = props.buildInfo.data() + 1;
        const char* end = props.buildInfo.data() + props.buildInfo.size();
        const auto [stop, ec] = std::from_chars(begin, end, number);
        if (ec == std::errc{} && stop != begin) {
            props.buildNumber = number;
        }
    }
    return props;
}

Result<HealthStatus> parseHealth(int httpStatus, std::string_view body) {
    // tools/server/server.cpp: 200 {"status":"ok"} once the model is loaded; while loading,
    // 503 with {"error":{"code":503,"message":"Loading model",...}}.
    if (httpStatus == 200) {
        return HealthStatus::Ready;
    }
    const std::optional<json> document = parse(body);
    if (httpStatus == 503 || httpStatus == 0) {
        if (document && document->is_object()) {
            const auto status = document->find("status");
            if (status != document->end() && *status == "ok") {
                return HealthStatus::Ready;
            }
            const auto error = document->find("error");
            if (error != document->end() && error->is_object() &&
                error->value("message", "") == "Loading model") {
                return HealthStatus::Loading;
            }
        }
        if (httpStatus == 503) {
            return HealthStatus::Loading;
        }
    }
    return makeError("server.health-unknown", "/health answered HTTP " + std::to_string(httpStatus) + ": " +
                                                  std::string(body.substr(0, 200)));
}

} // namespace llamafit
