#include "core/gguf/gguffile.h"

#include <limits>

namespace llamafit {

const GgufValue* GgufFile::find(std::string_view key) const {
    if (!m_metadataIndex.empty()) {
        auto it = m_metadataIndex.find(std::string(key));
        return it == m_metadataIndex.end() ? nullptr : &metadata[it->second].second;
    }
    for (const auto& [name, value] : metadata) {
        if (name == key) {
            return &value;
        }
    }
    return nullptr;
}

std::optional<std::uint64_t> GgufFile::getUint(std::string_view key) const {
    const GgufValue* value = find(key);
    if (!value) {
        return std::nullopt;
    }
    if (const auto* u = std::get_if<std::uint64_t>(&value->data)) {
        return *u;
    }
    if (const auto* i = std::get_if<std::int64_t>(&value->data); i && *i >= 0) {
        return static_cast<std::uint64_t>(*i);
    }
    return std::nullopt;
}

std::optional<std::int64_t> GgufFile::getInt(std::string_view key) const {
    const GgufValue* value = find(key);
    if (!value) {
        return std::nullopt;
    }
    if (const auto* i = std::get_if<std::int64_t>(&value->data)) {
        return *i;
    }
    if (const auto* u = std::get_if<std::uint64_t>(&value->data);
        u && *u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return static_cast<std::int64_t>(*u);
    }
    return std::nullopt;
}

std::optional<double> GgufFile::getFloat(std::string_view key) const {
    const GgufValue* value = find(key);
    if (!value) {
        return std::nullopt;
    }
    if (const auto* d = std::get_if<double>(&value->data)) {
        return *d;
    }
    if (const auto* u = std::get_if<std::uint64_t>(&value->data)) {
        return static_cast<double>(*u);
    }
    if (const auto* i = std::get_if<std::int64_t>(&value->data)) {
        return static_cast<double>(*i);
    }
    return std::nullopt;
}

std::optional<bool> GgufFile::getBool(std::string_view key) const {
    const GgufValue* value = find(key);
    if (!value) {
        return std::nullopt;
    }
    if (const auto* b = std::get_if<bool>(&value->data)) {
        return *b;
    }
    return std::nullopt;
}

std::optional<std::string> GgufFile::getString(std::string_view key) const {
    const GgufValue* value = find(key);
    if (!value) {
        return std::nullopt;
    }
    if (const auto* s = std::get_if<std::string>(&value->data)) {
        return *s;
    }
    return std::nullopt;
}

std::optional<std::vector<std::int64_t>> GgufFile::getIntArray(std::string_view key) const {
    const GgufValue* value = find(key);
    const GgufArray* array = value ? value->array() : nullptr;
    if (!array) {
        return std::nullopt;
    }
    std::vector<std::int64_t> out;
    out.reserve(array->size());
    for (std::size_t i = 0; i < array->size(); ++i) {
        const GgufValue element = array->elementAt(i);
        if (const auto* u = std::get_if<std::uint64_t>(&element.data)) {
            out.push_back(static_cast<std::int64_t>(*u));
        } else if (const auto* n = std::get_if<std::int64_t>(&element.data)) {
            out.push_back(*n);
        } else if (const auto* b = std::get_if<bool>(&element.data)) {
            out.push_back(*b ? 1 : 0);
        } else {
            return std::nullopt;
        }
    }
    return out;
}

std::optional<std::size_t> GgufFile::arrayLength(std::string_view key) const {
    const GgufValue* value = find(key);
    const GgufArray* array = value ? value->array() : nullptr;
    if (!array) {
        return std::nullopt;
    }
    return array->size();
}

const GgufTensorInfo* GgufFile::findTensor(std::string_view name) const {
    if (!m_tensorIndex.empty()) {
        auto it = m_tensorIndex.find(std::string(name));
        return it == m_tensorIndex.end() ? nullptr : &tensors[it->second];
    }
    for (const auto& tensor : tensors) {
        if (tensor.name == name) {
            return &tensor;
        }
    }
    return nullptr;
}

std::uint64_t GgufFile::tensorBytes() const {
    std::uint64_t total = 0;
    for (const auto& tensor : tensors) {
        total += tensor.bytes;
    }
    return total;
}

void GgufFile::rebuildIndex() {
    m_metadataIndex.clear();
    m_tensorIndex.clear();
    for (std::size_t i = 0; i < metadata.size(); ++i) {
        m_metadataIndex.emplace(metadata[i].first, i);
    }
    for (std::size_t i = 0; i < tensors.size(); ++i) {
        m_tensorIndex.emplace(tensors[i].name, i);
    }
}

} // namespace llamafit
