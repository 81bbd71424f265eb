// KvPair: one default set in one order, shared by `fit`, `sweep` and the sweep chart.
#include "core/sizing/kvpairs.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(KvPairs, DefaultsAreTheThreeEqualPairsThenTheMixedOne) {
    EXPECT_EQ(defaultKvPairs(), (std::vector<KvPair>{{GgmlType::F16, GgmlType::F16},
                                                     {GgmlType::Q8_0, GgmlType::Q8_0},
                                                     {GgmlType::Q4_0, GgmlType::Q4_0},
                                                     {GgmlType::F16, GgmlType::Q8_0}}));
}

TEST(KvPairs, TheCurrentPairIsAddedOnlyWhenItIsNotADefault) {
    EXPECT_EQ(defaultKvPairsWith({GgmlType::Q8_0, GgmlType::Q8_0}), defaultKvPairs());
    const std::vector<KvPair> withMixed = defaultKvPairsWith({GgmlType::Q8_0, GgmlType::Q4_0});
    ASSERT_EQ(withMixed.size(), defaultKvPairs().size() + 1);
    EXPECT_EQ(withMixed.back(), (KvPair{GgmlType::Q8_0, GgmlType::Q4_0}));
}

TEST(KvPairs, NameIsKSlashV) {
    EXPECT_EQ(kvPairName({GgmlType::F16, GgmlType::Q8_0}), "f16/q8_0");
    EXPECT_EQ(kvPairName({GgmlType::IQ4_NL, GgmlType::IQ4_NL}), "iq4_nl/iq4_nl");
}

} // namespace
} // namespace llamafit
