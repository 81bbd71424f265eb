// How llama.cpp reads -ts against the devices it has (core/sizing/tensorsplit.h): one share per
// device, the entries past the last device ignored (a three-entry -ts loads on one lavapipe device,
// 0.7.0 b11669), and the estimate that follows it with a note instead of refusing.
#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "core/sizing/tensorsplit.h"
#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace llamafit {
namespace {

GpuDevice gpu(const std::string& name, std::uint64_t mib) {
    GpuDevice device;
    device.name = name;
    device.memoryBytes = mib * kMiB;
    device.backend = Backend::Vulkan;
    return device;
}

TEST(TensorSplit, OneSharePerDeviceInDeviceOrder) {
    const std::vector<GpuDevice> two{gpu("Vulkan0", 8192), gpu("Vulkan1", 4096)};
    const DeviceShares given = deviceSplitShares({3, 1}, two);
    EXPECT_FALSE(given.byFreeMemory);
    EXPECT_EQ(given.shares, (std::vector<double>{3, 1}));
    // A missing entry is 0: the second device gets no block.
    EXPECT_EQ(deviceSplitShares({3}, two).shares, (std::vector<double>{3, 0}));
    // Entries past the last device are ignored.
    EXPECT_EQ(deviceSplitShares({3, 1, 7}, two).shares, (std::vector<double>{3, 1}));
    EXPECT_EQ(ignoredSplitEntries({3, 1, 7}, two.size()), 1u);
    EXPECT_EQ(ignoredSplitEntries({3, 1}, two.size()), 0u);
}

TEST(TensorSplit, NoShareForTheseDevicesSplitsByFreeMemory) {
    const std::vector<GpuDevice> one{gpu("Vulkan0", 8192)};
    for (const std::vector<double>& split : {std::vector<double>{}, {0}, {0, 5}}) {
        const DeviceShares shares = deviceSplitShares(split, one);
        EXPECT_TRUE(shares.byFreeMemory) << split.size();
        EXPECT_EQ(shares.shares, (std::vector<double>{8192.0 * kMiB})) << split.size();
    }
}

TEST(TensorSplit, TheEstimateUsesTheFirstSharesAndSaysWhatItIgnored) {
    const ModelInfo model = test::llama1B();
    const std::vector<GpuDevice> two{gpu("Vulkan0", 8192), gpu("Vulkan1", 8192)};
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.parallelSlots = 1;
    settings.tensorSplit = {1, 3};
    const auto asGiven = estimateMemory(model, settings, two);
    ASSERT_TRUE(asGiven.ok()) << asGiven.error().message;
    settings.tensorSplit = {1, 3, 5};
    const auto withAThird = estimateMemory(model, settings, two);
    ASSERT_TRUE(withAThird.ok()) << withAThird.error().message; // it refused before
    EXPECT_EQ(withAThird->devices, asGiven->devices);
    const auto mentionsTs = [](const std::string& note) { return note.rfind("-ts ", 0) == 0; };
    EXPECT_FALSE(std::any_of(asGiven->notes.begin(), asGiven->notes.end(), mentionsTs));
    const auto note = std::find_if(withAThird->notes.begin(), withAThird->notes.end(), mentionsTs);
    ASSERT_NE(note, withAThird->notes.end());
    EXPECT_EQ(*note, "-ts gives 3 shares for 2 device(s): llama.cpp uses the first 2 and ignores the last 1");
}

} // namespace
} // namespace llamafit
