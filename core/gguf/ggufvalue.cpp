#include "core/gguf/ggufvalue.h"

#include <algorithm>
#include <cstring>
#include <type_traits>

namespace llamafit {
namespace {

bool isInteger(GgufValueType type) {
    switch (type) {
    case GgufValueType::Uint8:
    case GgufValueType::Int8:
    case GgufValueType::Uint16:
    case GgufValueType::Int16:
    case GgufValueType::Uint32:
    case GgufValueType::Int32:
    case GgufValueType::Uint64:
    case GgufValueType::Int64:
        return true;
    default:
        return false;
    }
}

} // namespace

std::size_t GgufArray::packedWidth(GgufValueType type) {
    switch (type) {
    case GgufValueType::Uint8:
    case GgufValueType::Int8:
    case GgufValueType::Bool:
        return 1;
    case GgufValueType::Uint16:
    case GgufValueType::Int16:
        return 2;
    case GgufValueType::Uint32:
    case GgufValueType::Int32:
    case GgufValueType::Float32:
        return 4;
    case GgufValueType::Uint64:
    case GgufValueType::Int64:
    case GgufValueType::Float64:
        return 8;
    case GgufValueType::String:
    case GgufValueType::Array:
        return 0;
    }
    return 0;
}

// The packed buffer holds each element in its GGUF width, little-endian like the file and
// like every host we build for, so the reader can copy an array's bytes as they are.
template <typename T> void GgufArray::putPacked(T value) {
    std::uint8_t raw[sizeof(T)];
    std::memcpy(raw, &value, sizeof(T));
    m_packed.insert(m_packed.end(), raw, raw + sizeof(T));
    ++m_size;
}

template <typename T> T GgufArray::packedAt(std::size_t index) const {
    T value;
    std::memcpy(&value, m_packed.data() + index * sizeof(T), sizeof(T));
    return value;
}

GgufValue GgufArray::elementAt(std::size_t index) const {
    const GgufValueType type = m_elementType;
    switch (type) {
    case GgufValueType::Uint8:
        return GgufValue::fromUint(packedAt<std::uint8_t>(index), type);
    case GgufValueType::Uint16:
        return GgufValue::fromUint(packedAt<std::uint16_t>(index), type);
    case GgufValueType::Uint32:
        return GgufValue::fromUint(packedAt<std::uint32_t>(index), type);
    case GgufValueType::Uint64:
        return GgufValue::fromUint(packedAt<std::uint64_t>(index), type);
    case GgufValueType::Int8:
        return GgufValue::fromInt(packedAt<std::int8_t>(index), type);
    case GgufValueType::Int16:
        return GgufValue::fromInt(packedAt<std::int16_t>(index), type);
    case GgufValueType::Int32:
        return GgufValue::fromInt(packedAt<std::int32_t>(index), type);
    case GgufValueType::Int64:
        return GgufValue::fromInt(packedAt<std::int64_t>(index), type);
    case GgufValueType::Float32:
        return GgufValue::fromFloat(packedAt<float>(index), type);
    case GgufValueType::Float64:
        return GgufValue::fromFloat(packedAt<double>(index), type);
    case GgufValueType::Bool:
        return GgufValue::fromBool(packedAt<std::uint8_t>(index) != 0);
    case GgufValueType::String:
        return GgufValue::fromString(std::string(stringAt(index)));
    case GgufValueType::Array:
        return GgufValue::fromArray(m_arrays[index]);
    }
    return {};
}

std::string_view GgufArray::stringAt(std::size_t index) const {
    const std::uint64_t begin = index == 0 ? 0 : m_textEnds[index - 1];
    return std::string_view(m_text).substr(begin, m_textEnds[index] - begin);
}

const GgufArray& GgufArray::arrayAt(std::size_t index) const {
    return m_arrays[index];
}

bool GgufArray::append(const GgufValue& element) {
    if (element.type != m_elementType) {
        return false;
    }
    return std::visit(
        [this](const auto& data) {
            using T = std::decay_t<decltype(data)>;
            if constexpr (std::is_same_v<T, std::uint64_t>) {
                return appendUint(data);
            } else if constexpr (std::is_same_v<T, std::int64_t>) {
                return appendInt(data);
            } else if constexpr (std::is_same_v<T, double>) {
                return appendFloat(data);
            } else if constexpr (std::is_same_v<T, bool>) {
                return appendBool(data);
            } else if constexpr (std::is_same_v<T, std::string>) {
                return appendString(data);
            } else {
                return data && appendArray(*data);
            }
        },
        element.data);
}

bool GgufArray::appendUint(std::uint64_t value) {
    if (!isInteger(m_elementType)) {
        return false;
    }
    switch (packedWidth(m_elementType)) {
    case 1:
        putPacked(static_cast<std::uint8_t>(value));
        break;
    case 2:
        putPacked(static_cast<std::uint16_t>(value));
        break;
    case 4:
        putPacked(static_cast<std::uint32_t>(value));
        break;
    default:
        putPacked(value);
        break;
    }
    return true;
}

// Two's complement: the low bytes of the int64 are the bytes of the narrower signed value.
bool GgufArray::appendInt(std::int64_t value) {
    return appendUint(static_cast<std::uint64_t>(value));
}

bool GgufArray::appendFloat(double value) {
    if (m_elementType == GgufValueType::Float32) {
        putPacked(static_cast<float>(value));
        return true;
    }
    if (m_elementType == GgufValueType::Float64) {
        putPacked(value);
        return true;
    }
    return false;
}

bool GgufArray::appendBool(bool value) {
    if (m_elementType != GgufValueType::Bool) {
        return false;
    }
    putPacked(static_cast<std::uint8_t>(value ? 1 : 0));
    return true;
}

bool GgufArray::appendString(std::string_view text) {
    if (m_elementType != GgufValueType::String) {
        return false;
    }
    m_text.append(text);
    m_textEnds.push_back(m_text.size());
    ++m_size;
    return true;
}

bool GgufArray::appendArray(GgufArray array) {
    if (m_elementType != GgufValueType::Array) {
        return false;
    }
    m_arrays.push_back(std::move(array));
    ++m_size;
    return true;
}

bool GgufArray::appendPacked(std::span<const std::uint8_t> bytes) {
    const std::size_t width = packedWidth(m_elementType);
    if (width == 0 || bytes.size() % width != 0) {
        return false;
    }
    const std::size_t first = m_packed.size();
    m_packed.insert(m_packed.end(), bytes.begin(), bytes.end());
    if (m_elementType == GgufValueType::Bool) {
        // llama.cpp gguf.cpp reads a bool as int8 and takes any non-zero byte as true.
        std::for_each(m_packed.begin() + static_cast<std::ptrdiff_t>(first), m_packed.end(),
                      [](std::uint8_t& b) { b = b != 0 ? 1 : 0; });
    }
    m_size += bytes.size() / width;
    return true;
}

bool GgufArray::appendGgufStrings(std::span<const std::uint8_t> bytes, std::size_t count) {
    constexpr std::size_t kLengthBytes = sizeof(std::uint64_t);
    // Tokens are short: one fixed 16-byte copy (two moves, no call) covers most of them,
    // writing past the string's end into slack that the next string or the final resize
    // takes back.
    constexpr std::size_t kShort = 16;
    if (m_elementType != GgufValueType::String || bytes.size() / kLengthBytes < count) {
        return false;
    }
    // If the layout is right, the text is what the length fields leave, so the buffer is
    // sized once: a 250k-token vocabulary is one allocation, not 250k.
    const std::size_t oldText = m_text.size();
    const std::size_t oldEnds = m_textEnds.size();
    const std::size_t textBytes = bytes.size() - count * kLengthBytes;
    m_text.resize(oldText + textBytes + kShort);
    m_textEnds.reserve(oldEnds + count);
    char* const text = m_text.data() + oldText;
    const std::uint8_t* const in = bytes.data();
    const std::size_t inBytes = bytes.size();
    std::size_t at = 0;
    std::size_t written = 0;
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t length = 0;
        if (inBytes - at < kLengthBytes) {
            break;
        }
        std::memcpy(&length, in + at, kLengthBytes);
        at += kLengthBytes;
        if (length > inBytes - at || length > textBytes - written) {
            break;
        }
        const auto n = static_cast<std::size_t>(length);
        if (n <= kShort && inBytes - at >= kShort) {
            std::memcpy(text + written, in + at, kShort);
        } else {
            std::memcpy(text + written, in + at, n);
        }
        at += n;
        written += n;
        m_textEnds.push_back(oldText + written);
    }
    if (at != inBytes || written != textBytes || m_textEnds.size() != oldEnds + count) {
        m_text.resize(oldText);
        m_textEnds.resize(oldEnds);
        return false;
    }
    m_text.resize(oldText + textBytes);
    m_size += count;
    return true;
}

void GgufArray::reserve(std::size_t elements, std::size_t textBytes) {
    switch (m_elementType) {
    case GgufValueType::String:
        m_textEnds.reserve(m_textEnds.size() + elements);
        m_text.reserve(m_text.size() + textBytes);
        break;
    case GgufValueType::Array:
        m_arrays.reserve(m_arrays.size() + elements);
        break;
    default:
        m_packed.reserve(m_packed.size() + elements * packedWidth(m_elementType));
        break;
    }
}

bool GgufArray::operator==(const GgufArray& other) const {
    return m_elementType == other.m_elementType && m_size == other.m_size && m_packed == other.m_packed &&
           m_text == other.m_text && m_textEnds == other.m_textEnds && m_arrays == other.m_arrays;
}

bool GgufValue::operator==(const GgufValue& other) const {
    if (type != other.type || data.index() != other.data.index()) {
        return false;
    }
    if (const auto* array = std::get_if<std::shared_ptr<GgufArray>>(&data)) {
        const auto& otherArray = std::get<std::shared_ptr<GgufArray>>(other.data);
        if (!*array || !otherArray) {
            return *array == otherArray;
        }
        return **array == *otherArray;
    }
    return data == other.data;
}

const GgufArray* GgufValue::array() const {
    const auto* array = std::get_if<std::shared_ptr<GgufArray>>(&data);
    return array ? array->get() : nullptr;
}

GgufValue GgufValue::fromUint(std::uint64_t v, GgufValueType t) {
    return GgufValue{t, v};
}
GgufValue GgufValue::fromInt(std::int64_t v, GgufValueType t) {
    return GgufValue{t, v};
}
GgufValue GgufValue::fromFloat(double v, GgufValueType t) {
    return GgufValue{t, v};
}
GgufValue GgufValue::fromBool(bool v) {
    return GgufValue{GgufValueType::Bool, v};
}
GgufValue GgufValue::fromString(std::string v) {
    return GgufValue{GgufValueType::String, std::move(v)};
}
GgufValue GgufValue::fromArray(GgufArray array) {
    return GgufValue{GgufValueType::Array, std::make_shared<GgufArray>(std::move(array))};
}

} // namespace llamafit
