#include "core/gguf/ggufvaluereader.h"

#include <algorithm>
#include <string>

// A value is laid out as llama.cpp ggml/src/gguf.cpp gguf_reader reads it: scalars in their
// native little-endian width, bool as one byte, a string as uint64 length + bytes, an array
// as uint32 element type + uint64 count + elements. llama.cpp rejects arrays of arrays;
// gguf-py can write them, so we accept them up to GgufReadLimits::maxArrayNesting.

namespace llamafit {
namespace {

// Bytes of one value of `type` on disk at the least; 0 for an unknown type.
std::uint64_t minValueBytes(std::uint32_t type) {
    switch (static_cast<GgufValueType>(type)) {
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
    case GgufValueType::String:
        return 8; // the length prefix
    case GgufValueType::Array:
        return 4 + 8; // element type + count
    }
    return 0;
}

} // namespace

bool GgufValueReader::readValue(std::uint32_t type, std::uint32_t depth, GgufValue& out) {
    constexpr std::string_view what = "value";
    if (++m_valueCount > m_limits.maxMetadataValues) {
        m_in.fail("gguf.absurd-count",
                  "more than " + std::to_string(m_limits.maxMetadataValues) + " metadata values in the file");
        return false;
    }
    const auto valueType = static_cast<GgufValueType>(type);
    auto readUint = [&]<typename T>(T raw) {
        if (!m_in.read(raw, what)) {
            return false;
        }
        out = GgufValue::fromUint(raw, valueType);
        return true;
    };
    auto readInt = [&]<typename T>(T raw) {
        if (!m_in.read(raw, what)) {
            return false;
        }
        out = GgufValue::fromInt(raw, valueType);
        return true;
    };
    switch (valueType) {
    case GgufValueType::Uint8:
        return readUint(std::uint8_t{});
    case GgufValueType::Uint16:
        return readUint(std::uint16_t{});
    case GgufValueType::Uint32:
        return readUint(std::uint32_t{});
    case GgufValueType::Uint64:
        return readUint(std::uint64_t{});
    case GgufValueType::Int8:
        return readInt(std::int8_t{});
    case GgufValueType::Int16:
        return readInt(std::int16_t{});
    case GgufValueType::Int32:
        return readInt(std::int32_t{});
    case GgufValueType::Int64:
        return readInt(std::int64_t{});
    case GgufValueType::Float32: {
        float raw = 0;
        if (!m_in.read(raw, what)) {
            return false;
        }
        out = GgufValue::fromFloat(raw, valueType);
        return true;
    }
    case GgufValueType::Float64: {
        double raw = 0;
        if (!m_in.read(raw, what)) {
            return false;
        }
        out = GgufValue::fromFloat(raw, valueType);
        return true;
    }
    case GgufValueType::Bool: {
        // llama.cpp gguf.cpp reads a bool as int8 and takes any non-zero byte as true.
        std::uint8_t raw = 0;
        if (!m_in.read(raw, what)) {
            return false;
        }
        out = GgufValue::fromBool(raw != 0);
        return true;
    }
    case GgufValueType::String: {
        std::string text;
        if (!m_in.readString(text, what)) {
            return false;
        }
        out = GgufValue::fromString(std::move(text));
        return true;
    }
    case GgufValueType::Array:
        return readArray(depth + 1, out);
    }
    m_in.fail("gguf.unknown-value-type",
              m_in.context() + " has value type " + std::to_string(type) + " (GGUF defines 0-12)");
    return false;
}

bool GgufValueReader::readArray(std::uint32_t depth, GgufValue& out) {
    if (depth > m_limits.maxArrayNesting) {
        m_in.fail("gguf.nesting-too-deep", m_in.context() + " nests arrays " + std::to_string(depth) +
                                               " deep; the limit is " +
                                               std::to_string(m_limits.maxArrayNesting));
        return false;
    }
    std::uint32_t elementType = 0;
    std::uint64_t count = 0;
    if (!m_in.read(elementType, "array element type")) {
        return false;
    }
    const std::uint64_t minBytes = minValueBytes(elementType);
    if (minBytes == 0) {
        m_in.fail("gguf.unknown-value-type", m_in.context() + " is an array of value type " +
                                                 std::to_string(elementType) + " (GGUF defines 0-12)");
        return false;
    }
    if (!m_in.read(count, "array length") || !m_in.checkCount(count, minBytes, "array length")) {
        return false;
    }
    if (count > m_limits.maxMetadataValues - std::min(m_valueCount, m_limits.maxMetadataValues)) {
        m_in.fail("gguf.absurd-count", m_in.context() + " holds " + std::to_string(count) +
                                           " elements; with the " + std::to_string(m_valueCount) +
                                           " values before it that passes the limit of " +
                                           std::to_string(m_limits.maxMetadataValues));
        return false;
    }
    GgufArray array{static_cast<GgufValueType>(elementType), {}};
    // Reserve only a bounded head start: the count fits the file, but the bytes behind it
    // have not been seen yet, and a 30 GB sparse file "fits" almost any count.
    array.elements.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, 4096)));
    for (std::uint64_t i = 0; i < count; ++i) {
        GgufValue element;
        if (!readValue(elementType, depth, element)) {
            // Errors unwind from the innermost array out, so this reads "[2][7]" as [7] of [2].
            m_in.prependIndex(i);
            return false;
        }
        array.elements.push_back(std::move(element));
    }
    out = GgufValue::fromArray(std::move(array));
    return true;
}

} // namespace llamafit
