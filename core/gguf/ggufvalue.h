#pragma once
// One GGUF metadata value: a scalar, a string, or a (possibly nested) array.
// Produced by the GGUF reader, read by the model interpreter through the typed
// accessors of GgufFile. Plain value type.

#include <cstdint>
#include <memory>
#include <string>
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

struct GgufArray {
    GgufValueType elementType = GgufValueType::Uint8;
    std::vector<GgufValue> elements;
    bool operator==(const GgufArray&) const;
};

struct GgufValue {
    GgufValueType type = GgufValueType::Uint8;
    // Unsigned ints -> uint64_t, signed -> int64_t, floats -> double, Bool -> bool,
    // String -> std::string, Array -> GgufArray (held by pointer to allow nesting).
    std::variant<std::uint64_t, std::int64_t, double, bool, std::string, std::shared_ptr<GgufArray>> data;

    bool operator==(const GgufValue& other) const;

    static GgufValue fromUint(std::uint64_t v, GgufValueType t = GgufValueType::Uint32);
    static GgufValue fromInt(std::int64_t v, GgufValueType t = GgufValueType::Int32);
    static GgufValue fromFloat(double v, GgufValueType t = GgufValueType::Float32);
    static GgufValue fromBool(bool v);
    static GgufValue fromString(std::string v);
    static GgufValue fromArray(GgufArray array);
};

} // namespace llamafit
