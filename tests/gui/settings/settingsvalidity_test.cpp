// Refusals mapped onto the settings panel's controls, from the error's subject alone.
#include "ui/settings/settingsvalidity.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using Controls = std::vector<SettingsControl>;

TEST(SettingsValidity, ErrorsNameTheirControlsThroughTheirSubject) {
    using enum SettingsControl;
    EXPECT_EQ(offendingControls(makeError("settings.quantized-v-needs-fa", "",
                                          {Setting::CacheTypeV, Setting::FlashAttention})),
              (Controls{CacheTypeV, FlashAttention}));
    EXPECT_EQ(offendingControls(makeError("settings.block-size-mismatch", "",
                                          {Setting::CacheTypeK, Setting::FlashAttention})),
              (Controls{CacheTypeK, FlashAttention}));
    EXPECT_EQ(offendingControls(makeError("settings.bad-value", "", {Setting::Parallel, Setting::Context})),
              (Controls{Slots, Context}));
    EXPECT_EQ(offendingControls(makeError("settings.bad-value", "", {Setting::Ubatch, Setting::Batch})),
              (Controls{Ubatch, Batch}));
    // Settings only the extra-flags field sets, once each.
    EXPECT_EQ(offendingControls(
                  makeError("settings.bad-value", "", {Setting::TensorSplit, Setting::TensorOverrides})),
              Controls{ExtraFlags});
}

TEST(SettingsValidity, TheMessageIsNeverRead) {
    // A message that reads like a context error but a subject that says -ctv: the subject wins.
    EXPECT_EQ(offendingControls(makeError("settings.bad-value", "-c 0 -np 4 -b 1", {Setting::CacheTypeV})),
              Controls{SettingsControl::CacheTypeV});
    EXPECT_EQ(offendingControls(makeError("settings.bad-value", "-np 0: at least one slot is needed")),
              Controls{SettingsControl::ExtraFlags});
}

} // namespace
} // namespace llamafit
