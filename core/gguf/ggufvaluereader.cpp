#include "core/gguf/ggufvaluereader.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

// A value is laid out as llama.cpp ggml/src/gguf.cpp gguf_reader reads it: scalars in their
// native little-endian width, bool as one byte, a string as uint64 length + bytes, an array
// as uint32 element type + uint64 count + elements. llama.cpp rejects arrays of arrays;
// gguf-py can write them, so we accept them up to GgufReadLimits::maxArrayNesting.

namespace llamafit {
namespace {

// Bytes of one value of `type` on disk at the least; 0 for an unknown type. Scalars are
// their packed width; a string is at least its length prefix, an array its type and count.
std::uint64_t minValueBytes(std::uint32_t type) {
    switch (static_cast<GgufValueType>(type)) {
    case GgufValueType::String:
        return 8;
    case GgufValueType::Array:
        return 4 + 8;
    default:
        return type <= static_cast<std::uint32_t>(GgufValueType::Float64)
                   ? GgufArray::packedWidth(static_cast<GgufValueType>(type))
                   : 0;
    }
}

// Where `count` items of about `bytesEach` bytes starting at `start` end, with 1/8 to
// spare; saturates instead of overflowing (the cursor then caps it at the file end).
std::uint64_t estimateEnd(std::uint64_t start, std::uint64_t bytesEach, std::uint64_t count) {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    const std::uint64_t withSpare = bytesEach + bytesEach / 8 + 1;
    if (count > (kMax - start) / withSpare) {
        return kMax;
    }
    return start + withSpare * count;
}

} // namespace

bool GgufValueReader::countValue() {
    if (++m_valueCount > m_limits.maxMetadataValues) {
        m_in.fail("gguf.absurd-count",
                  "more than " + std::to_string(m_limits.maxMetadataValues) + " metadata values in the file");
        return false;
    }
    return true;
}

bool GgufValueReader::readValue(std::uint32_t type, std::uint32_t depth, GgufValue& out) {
    constexpr std::string_view what = "value";
    if (!countValue()) {
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
    case GgufValueType::Array: {
        GgufArray array;
        if (!readArray(depth + 1, array)) {
            return false;
        }
        out = GgufValue::fromArray(std::move(array));
        return true;
    }
    }
    m_in.fail("gguf.unknown-value-type",
              m_in.context() + " has value type " + std::to_string(type) + " (GGUF defines 0-12)");
    return false;
}

bool GgufValueReader::readArray(std::uint32_t depth, GgufArray& out) {
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
    out = GgufArray(static_cast<GgufValueType>(elementType));
    switch (out.elementType()) {
    case GgufValueType::String:
        return readStringElements(count, out);
    case GgufValueType::Array:
        return readArrayElements(count, depth, out);
    default:
        return readPackedElements(count, out);
    }
}

bool GgufValueReader::readPackedElements(std::uint64_t count, GgufArray& array) {
    // readArray checked count x width (the minimum it used) against the bytes left in the
    // file, so the product cannot overflow; take() checks it against the bytes given and the
    // header limit before a byte is copied.
    const std::uint64_t bytes = count * GgufArray::packedWidth(array.elementType());
    const std::uint8_t* raw = m_in.take(bytes, "array elements");
    if (!raw) {
        return false;
    }
    m_valueCount += count; // readArray checked that this stays within the limit
    if (!array.appendPacked({raw, static_cast<std::size_t>(bytes)})) {
        m_in.fail("gguf.internal", m_in.context() + ": the array refused its packed elements");
        return false;
    }
    return true;
}

bool GgufValueReader::readStringElements(std::uint64_t count, GgufArray& array) {
    // Pass 1 checks every length and sums them, allocating nothing: a quick walk over the
    // bytes at hand, then, where it stops early because a string runs past them, the cursor
    // goes on string by string so that the failure gets its usual error and element index.
    const std::uint64_t start = m_in.position();
    const std::span<const std::uint8_t> bytes = m_in.readable();
    std::size_t walked = 0;
    std::uint64_t i = 0;
    for (; i < count; ++i) {
        std::uint64_t length = 0;
        if (bytes.size() - walked < sizeof length) {
            break;
        }
        std::memcpy(&length, bytes.data() + walked, sizeof length);
        if (length > bytes.size() - walked - sizeof length) {
            break;
        }
        walked += sizeof length + static_cast<std::size_t>(length);
    }
    if (walked > 0 && !m_in.take(walked, "array elements")) {
        return false; // cannot happen: readable() said these bytes can be taken
    }
    for (std::uint64_t n = i; n < count; ++n) {
        std::string_view text;
        if (!m_in.readStringView(text, "value")) {
            m_in.prependIndex(n);
            // Every string not read yet still has its 8-byte length to come.
            m_in.ensureCertain(m_in.position() + 8 * (count - n));
            if (n == i && i > 0) {
                // Out of bytes at hand: expect the strings not seen yet to be as long as
                // those seen, so the caller reads (about) the whole array next time.
                m_in.expectNeeded(estimateEnd(start, walked / i, count));
            }
            return false;
        }
    }
    m_valueCount += count; // readArray checked that this stays within the limit

    // Pass 2: every string is checked and lies in bytes we hold, which bound what the array
    // allocates; it copies them into its one buffer.
    if (!array.appendGgufStrings(m_in.bytesFrom(start), static_cast<std::size_t>(count))) {
        m_in.fail("gguf.internal", m_in.context() + ": the array refused the strings checked for it");
        return false;
    }
    return true;
}

bool GgufValueReader::readArrayElements(std::uint64_t count, std::uint32_t depth, GgufArray& array) {
    // Reserve only what the bytes at hand can hold (12 bytes per array at least): the count
    // fits the file, but a 30 GB sparse file "fits" almost any count.
    array.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(count, m_in.readable().size() / 12)));
    for (std::uint64_t i = 0; i < count; ++i) {
        GgufArray element;
        if (!countValue() || !readArray(depth + 1, element)) {
            // Errors unwind from the innermost array out, so this reads "[2][7]" as [7] of [2].
            m_in.prependIndex(i);
            return false;
        }
        array.appendArray(std::move(element));
    }
    return true;
}

} // namespace llamafit
