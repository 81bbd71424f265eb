#include "tests/support/ggufbuilder.h"

#include "core/common/units.h"

namespace llamafit::test {

GgufBuilder::GgufBuilder(std::string architecture) : m_architecture(std::move(architecture)) {
    if (!m_architecture.empty()) {
        setString("general.architecture", m_architecture);
    }
}

GgufBuilder& GgufBuilder::set(const std::string& key, GgufValue value) {
    for (auto& [name, existing] : m_file.metadata) {
        if (name == key) {
            existing = std::move(value);
            return *this;
        }
    }
    m_file.metadata.emplace_back(key, std::move(value));
    return *this;
}

GgufBuilder& GgufBuilder::setUint32(const std::string& key, std::uint32_t value) {
    return set(key, GgufValue::fromUint(value, GgufValueType::Uint32));
}
GgufBuilder& GgufBuilder::setUint64(const std::string& key, std::uint64_t value) {
    return set(key, GgufValue::fromUint(value, GgufValueType::Uint64));
}
GgufBuilder& GgufBuilder::setInt32(const std::string& key, std::int32_t value) {
    return set(key, GgufValue::fromInt(value, GgufValueType::Int32));
}
GgufBuilder& GgufBuilder::setFloat32(const std::string& key, float value) {
    return set(key, GgufValue::fromFloat(value, GgufValueType::Float32));
}
GgufBuilder& GgufBuilder::setBool(const std::string& key, bool value) {
    return set(key, GgufValue::fromBool(value));
}
GgufBuilder& GgufBuilder::setString(const std::string& key, const std::string& value) {
    return set(key, GgufValue::fromString(value));
}

GgufBuilder& GgufBuilder::setUint32Array(const std::string& key, const std::vector<std::uint32_t>& values) {
    GgufArray array(GgufValueType::Uint32);
    array.reserve(values.size());
    for (auto v : values) {
        array.appendUint(v);
    }
    return set(key, GgufValue::fromArray(std::move(array)));
}
GgufBuilder& GgufBuilder::setInt32Array(const std::string& key, const std::vector<std::int32_t>& values) {
    GgufArray array(GgufValueType::Int32);
    array.reserve(values.size());
    for (auto v : values) {
        array.appendInt(v);
    }
    return set(key, GgufValue::fromArray(std::move(array)));
}
GgufBuilder& GgufBuilder::setBoolArray(const std::string& key, const std::vector<bool>& values) {
    GgufArray array(GgufValueType::Bool);
    array.reserve(values.size());
    for (bool v : values) {
        array.appendBool(v);
    }
    return set(key, GgufValue::fromArray(std::move(array)));
}
GgufBuilder& GgufBuilder::setFloat32Array(const std::string& key, const std::vector<float>& values) {
    GgufArray array(GgufValueType::Float32);
    array.reserve(values.size());
    for (float v : values) {
        array.appendFloat(v);
    }
    return set(key, GgufValue::fromArray(std::move(array)));
}
GgufBuilder& GgufBuilder::setStringArray(const std::string& key, const std::vector<std::string>& values) {
    GgufArray array(GgufValueType::String);
    std::size_t textBytes = 0;
    for (const auto& v : values) {
        textBytes += v.size();
    }
    array.reserve(values.size(), textBytes);
    for (const auto& v : values) {
        array.appendString(v);
    }
    return set(key, GgufValue::fromArray(std::move(array)));
}

GgufBuilder& GgufBuilder::addTensor(const std::string& name, GgmlType type,
                                    std::initializer_list<std::uint64_t> shape) {
    return addTensor(name, type, std::vector<std::uint64_t>(shape));
}

GgufBuilder& GgufBuilder::addTensor(const std::string& name, GgmlType type,
                                    const std::vector<std::uint64_t>& shape) {
    GgufTensorInfo tensor;
    tensor.name = name;
    tensor.type = type;
    tensor.dimensionCount = static_cast<std::uint32_t>(shape.size());
    for (std::size_t i = 0; i < shape.size() && i < 4; ++i) {
        tensor.shape[i] = shape[i];
    }
    tensor.bytes = ggmlRowBytes(type, tensor.shape[0]) * tensor.shape[1] * tensor.shape[2] * tensor.shape[3];
    std::uint64_t offset = 0;
    if (!m_file.tensors.empty()) {
        const auto& last = m_file.tensors.back();
        // gguf.cpp lays tensor data out on the general.alignment grid (32 when the key is absent).
        offset = padTo(last.dataOffset + last.bytes,
                       m_file.getUint("general.alignment").value_or(m_file.alignment));
    }
    tensor.dataOffset = offset;
    m_file.tensors.push_back(std::move(tensor));
    return *this;
}

GgufFile GgufBuilder::build() const {
    GgufFile copy = m_file;
    copy.rebuildIndex();
    return copy;
}

} // namespace llamafit::test
