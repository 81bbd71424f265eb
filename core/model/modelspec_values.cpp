// Typed metadata values and layer selectors of the ModelSpec JSON format (see modelspec.h).
#include "core/model/modelspec_internal.h"

#include <limits>
#include <optional>

namespace llamafit::spec {
namespace {

using nlohmann::json;

struct ScalarType {
    std::string_view name;
    GgufValueType type;
};

// Spellings follow gguf-py's GGUFValueType names, shortened the way people write them.
constexpr ScalarType kScalarTypes[] = {
    {"u8", GgufValueType::Uint8},    {"i8", GgufValueType::Int8},    {"u16", GgufValueType::Uint16},
    {"i16", GgufValueType::Int16},   {"u32", GgufValueType::Uint32}, {"i32", GgufValueType::Int32},
    {"u64", GgufValueType::Uint64},  {"i64", GgufValueType::Int64},  {"f32", GgufValueType::Float32},
    {"f64", GgufValueType::Float64}, {"bool", GgufValueType::Bool},  {"string", GgufValueType::String},
};

std::optional<GgufValueType> scalarTypeFromName(std::string_view name) {
    for (const auto& entry : kScalarTypes) {
        if (entry.name == name) {
            return entry.type;
        }
    }
    return std::nullopt;
}

bool isUnsigned(GgufValueType t) {
    return t == GgufValueType::Uint8 || t == GgufValueType::Uint16 || t == GgufValueType::Uint32 ||
           t == GgufValueType::Uint64;
}
bool isSigned(GgufValueType t) {
    return t == GgufValueType::Int8 || t == GgufValueType::Int16 || t == GgufValueType::Int32 ||
           t == GgufValueType::Int64;
}

std::uint64_t unsignedMax(GgufValueType t) {
    switch (t) {
    case GgufValueType::Uint8:
        return std::numeric_limits<std::uint8_t>::max();
    case GgufValueType::Uint16:
        return std::numeric_limits<std::uint16_t>::max();
    case GgufValueType::Uint32:
        return std::numeric_limits<std::uint32_t>::max();
    default:
        return std::numeric_limits<std::uint64_t>::max();
    }
}

std::int64_t signedMin(GgufValueType t) {
    switch (t) {
    case GgufValueType::Int8:
        return std::numeric_limits<std::int8_t>::min();
    case GgufValueType::Int16:
        return std::numeric_limits<std::int16_t>::min();
    case GgufValueType::Int32:
        return std::numeric_limits<std::int32_t>::min();
    default:
        return std::numeric_limits<std::int64_t>::min();
    }
}

std::int64_t signedMax(GgufValueType t) {
    switch (t) {
    case GgufValueType::Int8:
        return std::numeric_limits<std::int8_t>::max();
    case GgufValueType::Int16:
        return std::numeric_limits<std::int16_t>::max();
    case GgufValueType::Int32:
        return std::numeric_limits<std::int32_t>::max();
    default:
        return std::numeric_limits<std::int64_t>::max();
    }
}

Error badValue(const std::string& where, const std::string& what) {
    return makeError("spec.bad-metadata", where + ": " + what);
}

Result<GgufValue> scalarValue(const json& value, GgufValueType type, const std::string& where) {
    if (isUnsigned(type)) {
        if (!value.is_number_unsigned()) {
            return badValue(where, "expected a non-negative integer, got " + value.dump());
        }
        const auto v = value.get<std::uint64_t>();
        if (v > unsignedMax(type)) {
            return badValue(where, value.dump() + " does not fit the type");
        }
        return GgufValue::fromUint(v, type);
    }
    if (isSigned(type)) {
        if (!value.is_number_integer()) {
            return badValue(where, "expected an integer, got " + value.dump());
        }
        if (value.is_number_unsigned() &&
            value.get<std::uint64_t>() >
                static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
            return badValue(where, value.dump() + " does not fit the type");
        }
        const auto v = value.get<std::int64_t>();
        if (v < signedMin(type) || v > signedMax(type)) {
            return badValue(where, value.dump() + " does not fit the type");
        }
        return GgufValue::fromInt(v, type);
    }
    switch (type) {
    case GgufValueType::Float32:
    case GgufValueType::Float64:
        if (!value.is_number()) {
            return badValue(where, "expected a number, got " + value.dump());
        }
        // An f32 key holds what the file will hold: the value rounded to float, so a spec's
        // GgufFile equals the one the reader returns for the written file.
        return GgufValue::fromFloat(type == GgufValueType::Float32
                                        ? static_cast<double>(static_cast<float>(value.get<double>()))
                                        : value.get<double>(),
                                    type);
    case GgufValueType::Bool:
        if (!value.is_boolean()) {
            return badValue(where, "expected true or false, got " + value.dump());
        }
        return GgufValue::fromBool(value.get<bool>());
    case GgufValueType::String:
        if (!value.is_string()) {
            return badValue(where, "expected a string, got " + value.dump());
        }
        return GgufValue::fromString(value.get<std::string>());
    default:
        return badValue(where, "unsupported type");
    }
}

// "per_layer": {"default": v, "set": [{"layers": selector, "value": v}, ...]}: an array of
// block_count values, for keys llama.cpp reads per layer (head_count_kv of LFM2, Jamba ...).
Result<std::vector<json>> perLayerValues(const json& perLayer, std::uint32_t blockCount,
                                         const std::string& where) {
    if (!perLayer.is_object() || !perLayer.contains("default")) {
        return badValue(where, "per_layer needs an object with \"default\"");
    }
    std::vector<json> values(blockCount, perLayer.at("default"));
    if (perLayer.contains("set")) {
        const json& set = perLayer.at("set");
        if (!set.is_array()) {
            return badValue(where, "per_layer.set must be an array");
        }
        for (std::size_t n = 0; n < set.size(); ++n) {
            const json& rule = set[n];
            const std::string ruleWhere = where + ".per_layer.set[" + std::to_string(n) + "]";
            if (!rule.is_object() || !rule.contains("layers") || !rule.contains("value")) {
                return badValue(ruleWhere, "needs \"layers\" and \"value\"");
            }
            auto selected = parseLayerSelector(rule.at("layers"), blockCount, ruleWhere, "spec.bad-metadata");
            if (!selected) {
                return selected.error();
            }
            for (std::uint32_t i = 0; i < blockCount; ++i) {
                if ((*selected)[i]) {
                    values[i] = rule.at("value");
                }
            }
        }
    }
    return values;
}

} // namespace

Result<std::string> requiredString(const json& object, const char* field, const std::string& where) {
    if (!object.contains(field)) {
        return makeError("spec.missing-field", where + ": missing \"" + field + "\"");
    }
    if (!object.at(field).is_string()) {
        return makeError("spec.bad-json", where + ": \"" + field + "\" must be a string");
    }
    return object.at(field).get<std::string>();
}

std::optional<Error> checkFields(const json& object, std::initializer_list<std::string_view> allowed,
                                 const std::string& where) {
    for (const auto& [name, value] : object.items()) {
        if (name == "comment") {
            continue;
        }
        bool known = false;
        for (const auto& field : allowed) {
            known = known || field == name;
        }
        if (!known) {
            return makeError("spec.bad-json", where + ": unknown field \"" + name + "\"");
        }
    }
    return std::nullopt;
}

Result<std::vector<bool>> parseLayerSelector(const json& selector, std::uint32_t blockCount,
                                             const std::string& where, const std::string& errorCode) {
    const auto fail = [&](const std::string& what) {
        return makeError(errorCode, where + ": layer selector " + selector.dump() + " " + what);
    };
    std::vector<bool> selected(blockCount, false);
    if (selector.is_string()) {
        if (selector.get<std::string>() != "all") {
            return fail("is not \"all\", a list or an object");
        }
        selected.assign(blockCount, true);
        return selected;
    }
    const json* list = selector.is_array() ? &selector : nullptr;
    const bool inverted = selector.is_object() && selector.contains("except");
    if (inverted) {
        list = &selector.at("except");
        if (!list->is_array() || selector.size() != 1) {
            return fail("needs {\"except\": [layers]} alone");
        }
    }
    if (list) {
        for (const json& index : *list) {
            if (!index.is_number_unsigned() || index.get<std::uint64_t>() >= blockCount) {
                return fail("names a layer outside 0.." + std::to_string(blockCount) + " (exclusive)");
            }
            selected[index.get<std::size_t>()] = true;
        }
        if (inverted) {
            selected.flip();
        }
        return selected;
    }
    if (!selector.is_object()) {
        return fail("is not \"all\", a list or an object");
    }
    const auto field = [&](const char* name, std::uint64_t fallback) -> std::optional<std::uint64_t> {
        if (!selector.contains(name)) {
            return fallback;
        }
        const json& v = selector.at(name);
        return v.is_number_unsigned() ? std::optional<std::uint64_t>(v.get<std::uint64_t>()) : std::nullopt;
    };
    const auto offset = field("offset", 0);
    if (!offset) {
        return fail("has a bad \"offset\"");
    }
    if (selector.contains("every") || selector.contains("except_every")) {
        const bool except = selector.contains("except_every");
        const auto every = field(except ? "except_every" : "every", 0);
        if (!every || *every == 0 || *offset >= *every) {
            return fail("needs a period > 0 and an offset below it");
        }
        for (std::uint32_t i = 0; i < blockCount; ++i) {
            selected[i] = ((i % *every) == *offset) != except;
        }
        return selected;
    }
    if (selector.contains("from") || selector.contains("to")) {
        const auto from = field("from", 0);
        const auto to = field("to", blockCount);
        if (!from || !to || *from > *to || *to > blockCount) {
            return fail("needs 0 <= from <= to <= " + std::to_string(blockCount));
        }
        for (std::uint64_t i = *from; i < *to; ++i) {
            selected[i] = true;
        }
        return selected;
    }
    return fail("has none of every, except_every, from/to");
}

Result<GgufValue> parseMetadataValue(const json& entry, std::uint32_t blockCount, const std::string& where) {
    if (!entry.contains("type") || !entry.at("type").is_string()) {
        return makeError("spec.missing-field", where + ": needs a string \"type\"");
    }
    std::string typeName = entry.at("type").get<std::string>();
    const bool isArray = typeName.size() > 2 && typeName.ends_with("[]");
    if (isArray) {
        typeName.resize(typeName.size() - 2);
    }
    const auto type = scalarTypeFromName(typeName);
    if (!type) {
        return badValue(where, "unknown type \"" + entry.at("type").get<std::string>() +
                                   "\" (u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool string, or <type>[])");
    }
    if (!isArray) {
        if (!entry.contains("value")) {
            return makeError("spec.missing-field", where + ": needs a \"value\"");
        }
        return scalarValue(entry.at("value"), *type, where);
    }
    std::vector<json> elements;
    if (entry.contains("per_layer")) {
        auto values = perLayerValues(entry.at("per_layer"), blockCount, where);
        if (!values) {
            return values.error();
        }
        elements = std::move(*values);
    } else if (entry.contains("value")) {
        if (!entry.at("value").is_array()) {
            return badValue(where, "an array type needs a JSON array value");
        }
        elements.assign(entry.at("value").begin(), entry.at("value").end());
    } else {
        return makeError("spec.missing-field", where + ": needs a \"value\" or \"per_layer\"");
    }
    GgufArray array(*type);
    array.reserve(elements.size());
    for (std::size_t n = 0; n < elements.size(); ++n) {
        auto element = scalarValue(elements[n], *type, where + "[" + std::to_string(n) + "]");
        if (!element) {
            return element.error();
        }
        array.append(*element); // scalarValue made it of the element type
    }
    return GgufValue::fromArray(std::move(array));
}

} // namespace llamafit::spec
