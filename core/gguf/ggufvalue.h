#pragma once
// One GGUF metadata value: a scalar, a string, or a (possibly nested) array.
// Produced by the GGUF reader, read by the model interpreter through the typed
// accessors of GgufFile. Plain value types.
//
// Arrays are stored compactly (GgufArray), not as one GgufValue per element: a real
// vocabulary is three arrays of ~250k elements, and a variant plus a std::string per
// token made the header parse of such a model take ~90 ms instead of a few.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace llamafit {

// On-disk GGUF value type ids (ggml/include/gguf.h enum gguf_type).
enum class GgufValueType : std::uint32_t {
    Uint8 = 0,
    Int8 = 1,
    Uint16 = 2,
    Int16 = 3,
    Uint32 = 4,
    Int32 = 5,
    Float32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    Uint64 = 10,
    Int64 = 11,
    Float64 = 12,
};

struct GgufValue;

// A GGUF array of one element type. Storage depends on that type:
//   numbers, bool  one packed little-endian byte buffer, the on-disk width per element
//                  (bool normalised to 0/1), so the reader copies a whole array at once;
//   String         every string back to back in one buffer plus the end offset of each;
//   Array          the nested arrays themselves.
// Elements are read with elementAt() (decoded into a GgufValue) or, without a copy, with
// stringAt() / arrayAt(). Equality compares types and stored bytes (so a NaN equals the
// same NaN, and 0.0 differs from -0.0).
class GgufArray {
  public:
    GgufArray() = default;
    explicit GgufArray(GgufValueType elementType) : m_elementType(elementType) {}

    GgufValueType elementType() const { return m_elementType; }
    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    // Element `index` (< size()) as a value of the element type; a string or nested array
    // is copied, so prefer stringAt / arrayAt for those.
    GgufValue elementAt(std::size_t index) const;
    // Element `index` of a String array; valid while the array is alive and unchanged.
    std::string_view stringAt(std::size_t index) const;
    // Element `index` of an Array array.
    const GgufArray& arrayAt(std::size_t index) const;

    // Appenders for builders. Each returns false and changes nothing when the value does
    // not suit the element type: appendUint / appendInt need an integer type (the value is
    // cut to its width, like a static_cast), appendFloat Float32 or Float64, appendBool
    // Bool, appendString String, appendArray Array. append() takes a value whose type is
    // the element type.
    bool append(const GgufValue& element);
    bool appendUint(std::uint64_t value);
    bool appendInt(std::int64_t value);
    bool appendFloat(double value);
    bool appendBool(bool value);
    bool appendString(std::string_view text);
    bool appendArray(GgufArray array);
    // For the reader: whole elements of a numeric or Bool type as they lie on disk
    // (bytes.size() a multiple of packedWidth(elementType())); false otherwise.
    bool appendPacked(std::span<const std::uint8_t> bytes);
    // For the reader: `count` strings of a String array as they lie on disk (uint64 length,
    // then the bytes), exactly filling `bytes`; false, changing nothing, when they do not.
    bool appendGgufStrings(std::span<const std::uint8_t> bytes, std::size_t count);
    // Room for `elements` more elements and, for a String array, `textBytes` more bytes.
    void reserve(std::size_t elements, std::size_t textBytes = 0);

    // Bytes of one element of `type` in the packed buffer (= on disk); 0 for String and Array.
    static std::size_t packedWidth(GgufValueType type);

    bool operator==(const GgufArray& other) const;

  private:
    template <typename T> void putPacked(T value);
    template <typename T> T packedAt(std::size_t index) const;

    GgufValueType m_elementType = GgufValueType::Uint8;
    std::size_t m_size = 0;
    std::vector<std::uint8_t> m_packed;    // numbers and bool: m_size x packedWidth bytes
    std::string m_text;                    // String: the strings back to back
    std::vector<std::uint64_t> m_textEnds; // String: end of string i in m_text
    std::vector<GgufArray> m_arrays;       // Array: the nested arrays
};

struct GgufValue {
    GgufValueType type = GgufValueType::Uint8;
    // Unsigned ints -> uint64_t, signed -> int64_t, floats -> double, Bool -> bool,
    // String -> std::string, Array -> GgufArray (held by pointer to allow nesting).
    std::variant<std::uint64_t, std::int64_t, double, bool, std::string, std::shared_ptr<GgufArray>> data;

    bool operator==(const GgufValue& other) const;

    // The array this value holds, or nullptr when it is not an array.
    const GgufArray* array() const;

    static GgufValue fromUint(std::uint64_t v, GgufValueType t = GgufValueType::Uint32);
    static GgufValue fromInt(std::int64_t v, GgufValueType t = GgufValueType::Int32);
    static GgufValue fromFloat(double v, GgufValueType t = GgufValueType::Float32);
    static GgufValue fromBool(bool v);
    static GgufValue fromString(std::string v);
    static GgufValue fromArray(GgufArray array);
};

} // namespace llamafit
