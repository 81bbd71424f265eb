// Typed reads of "<arch>.*" keys; the array rule follows llama.cpp
// src/llama-model-loader.cpp get_key_or_arr ("key %s has wrong array length").
#include "core/model/archkeys.h"

#include <limits>

namespace llamafit {

ArchKeys::ArchKeys(const GgufFile& file, std::string architecture)
    : m_file(file), m_architecture(std::move(architecture)) {}

std::string ArchKeys::key(std::string_view suffix) const {
    std::string out = m_architecture;
    out += '.';
    out += suffix;
    return out;
}

bool ArchKeys::has(std::string_view suffix) const {
    return m_file.find(key(suffix)) != nullptr;
}

bool ArchKeys::isArray(std::string_view suffix) const {
    return m_file.arrayLength(key(suffix)).has_value();
}

std::optional<std::uint64_t> ArchKeys::uint(std::string_view suffix) const {
    return m_file.getUint(key(suffix));
}

Result<std::optional<std::uint32_t>> ArchKeys::uint32(std::string_view suffix) const {
    const std::string name = key(suffix);
    if (m_file.find(name) == nullptr) {
        return std::optional<std::uint32_t>{};
    }
    const auto value = m_file.getUint(name);
    if (!value) {
        return makeError("model.bad-value", name + " is not a non-negative integer");
    }
    if (*value > std::numeric_limits<std::uint32_t>::max()) {
        return makeError("model.bad-value", name + " = " + std::to_string(*value) +
                                                " does not fit in 32 bits (llama.cpp reads uint32)");
    }
    return std::optional<std::uint32_t>{static_cast<std::uint32_t>(*value)};
}

Result<std::uint32_t> ArchKeys::requiredUint32(std::string_view suffix, std::string_view why) const {
    auto value = uint32(suffix);
    if (!value.ok()) {
        return value.error();
    }
    if (!value.value()) {
        return makeError("model.missing-key",
                         "key not found in model: " + key(suffix) + " (" + std::string(why) + ")");
    }
    return *value.value();
}

Result<std::optional<std::vector<std::uint32_t>>> ArchKeys::perLayer(std::string_view suffix,
                                                                     std::uint32_t layerCount) const {
    using Out = std::optional<std::vector<std::uint32_t>>;
    const std::string name = key(suffix);
    if (m_file.find(name) == nullptr) {
        return Out{};
    }
    if (const auto length = m_file.arrayLength(name)) {
        if (*length != layerCount) {
            return makeError("model.bad-value", name + " has wrong array length; expected " +
                                                    std::to_string(layerCount) + " (block_count), got " +
                                                    std::to_string(*length));
        }
        const auto values = m_file.getIntArray(name);
        if (!values) {
            return makeError("model.bad-value", name + " is an array of something other than integers");
        }
        std::vector<std::uint32_t> out;
        out.reserve(values->size());
        for (const auto v : *values) {
            if (v < 0 || v > static_cast<std::int64_t>(std::numeric_limits<std::uint32_t>::max())) {
                return makeError("model.bad-value", name + " holds " + std::to_string(v) + ", not a uint32");
            }
            out.push_back(static_cast<std::uint32_t>(v));
        }
        return Out{std::move(out)};
    }
    auto scalar = uint32(suffix);
    if (!scalar.ok()) {
        return scalar.error();
    }
    return Out{std::vector<std::uint32_t>(layerCount, *scalar.value())};
}

} // namespace llamafit
