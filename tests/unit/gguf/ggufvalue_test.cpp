// GgufArray: the compact array of GGUF metadata. Every element type round-trips through
// the appenders and elementAt(); appenders refuse values of another type; the reader's
// bulk appenders take only what the on-disk layout allows and change nothing otherwise.

#include "core/gguf/ggufvalue.h"

#include "tests/unit/gguf/rawgguf.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace llamafit {
namespace {

using test::RawGguf;

template <typename T> std::vector<std::uint8_t> packed(std::initializer_list<T> values) {
    RawGguf raw;
    for (T v : values) {
        if constexpr (sizeof(T) == 1) {
            raw.u8(static_cast<std::uint8_t>(v));
        } else if constexpr (sizeof(T) == 4) {
            raw.u32(static_cast<std::uint32_t>(v));
        } else {
            raw.u64(static_cast<std::uint64_t>(v));
        }
    }
    return raw.bytes();
}

TEST(GgufArray, IntegersKeepTheirWidthAndSign) {
    struct Case {
        GgufValueType type;
        std::int64_t low;
        std::uint64_t high;
    };
    const Case cases[] = {
        {GgufValueType::Uint8, 0, 255},
        {GgufValueType::Int8, -128, 127},
        {GgufValueType::Uint16, 0, 65535},
        {GgufValueType::Int16, -32768, 32767},
        {GgufValueType::Uint32, 0, 0xFFFFFFFFu},
        {GgufValueType::Int32, std::numeric_limits<std::int32_t>::min(), 0x7FFFFFFF},
        {GgufValueType::Uint64, 0, std::numeric_limits<std::uint64_t>::max()},
        {GgufValueType::Int64, std::numeric_limits<std::int64_t>::min(), 0x7FFFFFFFFFFFFFFF},
    };
    for (const auto& c : cases) {
        const bool isSigned = c.low < 0;
        GgufArray array(c.type);
        ASSERT_TRUE(array.appendInt(c.low));
        ASSERT_TRUE(array.appendUint(c.high));
        ASSERT_EQ(array.size(), 2u);
        const GgufValue low = array.elementAt(0);
        const GgufValue high = array.elementAt(1);
        EXPECT_EQ(low.type, c.type);
        if (isSigned) {
            EXPECT_EQ(std::get<std::int64_t>(low.data), c.low) << static_cast<int>(c.type);
            EXPECT_EQ(std::get<std::int64_t>(high.data), static_cast<std::int64_t>(c.high));
        } else {
            EXPECT_EQ(std::get<std::uint64_t>(low.data), 0u) << static_cast<int>(c.type);
            EXPECT_EQ(std::get<std::uint64_t>(high.data), c.high);
        }
    }
}

TEST(GgufArray, FloatsAndBools) {
    GgufArray f32(GgufValueType::Float32);
    ASSERT_TRUE(f32.appendFloat(0.1));
    EXPECT_EQ(std::get<double>(f32.elementAt(0).data), static_cast<double>(0.1f)); // stored as float
    GgufArray f64(GgufValueType::Float64);
    ASSERT_TRUE(f64.appendFloat(0.1));
    EXPECT_EQ(std::get<double>(f64.elementAt(0).data), 0.1);
    GgufArray bools(GgufValueType::Bool);
    ASSERT_TRUE(bools.appendBool(true));
    ASSERT_TRUE(bools.appendBool(false));
    EXPECT_EQ(bools.elementAt(0), GgufValue::fromBool(true));
    EXPECT_EQ(bools.elementAt(1), GgufValue::fromBool(false));
}

TEST(GgufArray, AppendersRefuseAnotherType) {
    GgufArray numbers(GgufValueType::Uint32);
    EXPECT_FALSE(numbers.appendString("x"));
    EXPECT_FALSE(numbers.appendFloat(1.0));
    EXPECT_FALSE(numbers.appendBool(true));
    EXPECT_FALSE(numbers.appendArray(GgufArray(GgufValueType::Uint8)));
    EXPECT_FALSE(numbers.append(GgufValue::fromUint(1, GgufValueType::Uint16)));
    EXPECT_TRUE(numbers.empty());
    GgufArray floats(GgufValueType::Float32);
    EXPECT_FALSE(floats.appendUint(1));
    EXPECT_FALSE(floats.appendInt(-1));
    GgufArray strings(GgufValueType::String);
    EXPECT_FALSE(strings.appendUint(1));
    EXPECT_FALSE(strings.appendPacked(packed<std::uint32_t>({1})));
    EXPECT_TRUE(floats.empty());
    EXPECT_TRUE(strings.empty());
    EXPECT_TRUE(strings.append(GgufValue::fromString("ok")));
    EXPECT_EQ(strings.stringAt(0), "ok");
}

TEST(GgufArray, StringsAndNestedArrays) {
    GgufArray strings(GgufValueType::String);
    for (const char* s : {"", "a", "two words", ""}) {
        ASSERT_TRUE(strings.appendString(s));
    }
    ASSERT_EQ(strings.size(), 4u);
    EXPECT_EQ(strings.stringAt(0), "");
    EXPECT_EQ(strings.stringAt(2), "two words");
    EXPECT_EQ(strings.stringAt(3), "");
    EXPECT_EQ(strings.elementAt(1), GgufValue::fromString("a"));

    GgufArray nested(GgufValueType::Array);
    ASSERT_TRUE(nested.appendArray(strings));
    ASSERT_TRUE(nested.append(GgufValue::fromArray(GgufArray(GgufValueType::Int8))));
    ASSERT_EQ(nested.size(), 2u);
    EXPECT_EQ(nested.arrayAt(0), strings);
    EXPECT_EQ(nested.elementAt(0), GgufValue::fromArray(strings));
    EXPECT_TRUE(nested.arrayAt(1).empty());
    EXPECT_EQ(nested.arrayAt(1).elementType(), GgufValueType::Int8);
}

TEST(GgufArray, PackedBytesAreWholeElementsAndBoolsAreNormalised) {
    GgufArray words(GgufValueType::Uint32);
    ASSERT_TRUE(words.appendPacked(packed<std::uint32_t>({7, 0xDEADBEEF})));
    GgufArray built(GgufValueType::Uint32);
    built.appendUint(7);
    built.appendUint(0xDEADBEEF);
    EXPECT_EQ(words, built);
    EXPECT_FALSE(words.appendPacked(std::vector<std::uint8_t>{1, 2, 3})); // not a whole element
    EXPECT_EQ(words.size(), 2u);

    // llama.cpp reads any non-zero byte as true; the array stores 0/1, so equal arrays compare equal.
    GgufArray bools(GgufValueType::Bool);
    ASSERT_TRUE(bools.appendPacked(std::vector<std::uint8_t>{0, 2, 255}));
    GgufArray expected(GgufValueType::Bool);
    expected.appendBool(false);
    expected.appendBool(true);
    expected.appendBool(true);
    EXPECT_EQ(bools, expected);
}

TEST(GgufArray, GgufStringsAreCopiedFromTheirOnDiskLayout) {
    const std::string longText(40, 'L'); // longer than the short-string fast path
    const auto bytes = RawGguf().str("").str("short").str(longText).str("end").bytes();
    GgufArray array(GgufValueType::String);
    ASSERT_TRUE(array.appendString("before"));
    ASSERT_TRUE(array.appendGgufStrings(bytes, 4));
    ASSERT_EQ(array.size(), 5u);
    EXPECT_EQ(array.stringAt(0), "before");
    EXPECT_EQ(array.stringAt(1), "");
    EXPECT_EQ(array.stringAt(2), "short");
    EXPECT_EQ(array.stringAt(3), longText);
    EXPECT_EQ(array.stringAt(4), "end"); // ends less than 16 bytes before the input does
    GgufArray same(GgufValueType::String);
    for (const std::string s : {"before", "", "short", longText.c_str(), "end"}) {
        same.appendString(s);
    }
    EXPECT_EQ(array, same);
}

TEST(GgufArray, BadGgufStringLayoutsChangeNothing) {
    const auto two = RawGguf().str("ab").str("cde").bytes();
    GgufArray array(GgufValueType::String);
    array.appendString("kept");
    const GgufArray before = array;
    EXPECT_FALSE(array.appendGgufStrings(two, 3));                                 // fewer strings than said
    EXPECT_FALSE(array.appendGgufStrings(two, 1));                                 // bytes left over
    EXPECT_FALSE(array.appendGgufStrings(RawGguf().u64(100).str("x").bytes(), 1)); // length past the end
    EXPECT_FALSE(array.appendGgufStrings(RawGguf().u32(1).bytes(), 1));            // a cut length
    EXPECT_EQ(array, before);
    GgufArray numbers(GgufValueType::Uint8);
    EXPECT_FALSE(numbers.appendGgufStrings(two, 2));
    EXPECT_TRUE(numbers.empty());
}

TEST(GgufArray, EqualityComparesTypeAndContent) {
    GgufArray a(GgufValueType::Int32);
    GgufArray b(GgufValueType::Uint32);
    EXPECT_FALSE(a == b); // same (no) content, other type
    a.appendInt(-1);
    GgufArray c(GgufValueType::Int32);
    c.appendInt(-1);
    EXPECT_EQ(a, c);
    c.appendInt(0);
    EXPECT_FALSE(a == c);
}

TEST(GgufValue, ArrayAccessor) {
    EXPECT_EQ(GgufValue::fromUint(3).array(), nullptr);
    const GgufValue value = GgufValue::fromArray(GgufArray(GgufValueType::String));
    ASSERT_NE(value.array(), nullptr);
    EXPECT_EQ(value.array()->elementType(), GgufValueType::String);
}

} // namespace
} // namespace llamafit
