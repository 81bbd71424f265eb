// ComponentBytes helpers.
#include "core/sizing/memoryestimate.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr Component kAll[] = {Component::Model,  Component::Kv,      Component::Rs,
                              Component::Output, Component::Compute, Component::Overhead};

TEST(ComponentBytes, AddAndGetAddressEachField) {
    ComponentBytes bytes;
    std::uint64_t value = 1;
    for (Component c : kAll) {
        bytes.add(c, value);
        bytes.add(c, value);
        value *= 10;
    }
    EXPECT_EQ(bytes.modelBytes, 2u);
    EXPECT_EQ(bytes.kvBytes, 20u);
    EXPECT_EQ(bytes.rsBytes, 200u);
    EXPECT_EQ(bytes.outputBytes, 2000u);
    EXPECT_EQ(bytes.computeBytes, 20000u);
    EXPECT_EQ(bytes.overheadBytes, 200000u);
    value = 2;
    for (Component c : kAll) {
        EXPECT_EQ(bytes.get(c), value);
        value *= 10;
    }
    EXPECT_EQ(bytes.totalBytes(), 222222u);
}

TEST(ComponentBytes, PlusEqualsAddsEveryField) {
    ComponentBytes a{1, 2, 3, 4, 5, 6};
    const ComponentBytes b{10, 20, 30, 40, 50, 60};
    a += b;
    EXPECT_EQ(a, (ComponentBytes{11, 22, 33, 44, 55, 66}));
    EXPECT_EQ(a.totalBytes(), 231u);
}

} // namespace
} // namespace llamafit
