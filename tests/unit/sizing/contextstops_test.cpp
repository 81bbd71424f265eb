// ContextStops: powers of two from 256 with quarter steps between, multiples of 256, ending at
// the training context; nearest-stop lookup.
#include "core/sizing/contextstops.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace llamafit {
namespace {

bool contains(const std::vector<std::uint32_t>& stops, std::uint32_t value) {
    return std::find(stops.begin(), stops.end(), value) != stops.end();
}

TEST(ContextStops, PowersOfTwoWithQuarterStepsUpToTheTrainingContext) {
    const ContextStops stops(262144);
    const std::vector<std::uint32_t> head(stops.tokens().begin(), stops.tokens().begin() + 12);
    EXPECT_EQ(head, (std::vector<std::uint32_t>{256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 3584,
                                                4096}));
    for (std::uint32_t value : {4096u, 5120u, 6144u, 7168u, 8192u, 65536u, 81920u, 98304u, 229376u}) {
        EXPECT_TRUE(contains(stops.tokens(), value)) << value;
    }
    EXPECT_FALSE(contains(stops.tokens(), 4352u)); // finer than a quarter step
    EXPECT_EQ(stops.maximum(), 262144u);
    EXPECT_EQ(stops.tokens().back(), 262144u);
    EXPECT_TRUE(std::is_sorted(stops.tokens().begin(), stops.tokens().end()));
    EXPECT_EQ(std::adjacent_find(stops.tokens().begin(), stops.tokens().end()), stops.tokens().end());
    for (std::uint32_t value : stops.tokens()) {
        EXPECT_EQ(value % 256, 0u) << value;
    }
}

TEST(ContextStops, EndsAtATrainingContextThatIsNoPowerOfTwo) {
    const ContextStops stops(40960);
    EXPECT_EQ(stops.tokens().back(), 40960u);
    EXPECT_EQ(stops.tokens()[stops.tokens().size() - 2], 32768u); // 40960 is itself the first quarter step
    const ContextStops odd(1000);
    EXPECT_EQ(odd.tokens(), (std::vector<std::uint32_t>{256, 512, 768, 1000}));
}

TEST(ContextStops, ASmallOrUnknownTrainingContext) {
    EXPECT_EQ(ContextStops(100).tokens(), std::vector<std::uint32_t>{100});
    EXPECT_EQ(ContextStops(256).tokens(), std::vector<std::uint32_t>{256});
    EXPECT_EQ(ContextStops(0).maximum(), ContextStops::kUnknownTrainingContext);
    EXPECT_EQ(ContextStops(1ULL << 40).maximum(), 0xFFFFFFFFu);
}

TEST(ContextStops, MapsIndicesAndTheNearestStop) {
    const ContextStops stops(131072);
    EXPECT_EQ(stops.tokensAt(0), 256u);
    EXPECT_EQ(stops.tokensAt(-5), 256u);
    EXPECT_EQ(stops.tokensAt(stops.count() + 3), 131072u);
    for (int i = 0; i < stops.count(); ++i) {
        EXPECT_EQ(stops.nearestIndex(stops.tokensAt(i)), i);
    }
    EXPECT_EQ(stops.nearest(5000), 5120u);
    EXPECT_EQ(stops.nearest(4608), 4096u); // a tie goes to the lower stop
    EXPECT_EQ(stops.nearest(4609), 5120u);
    EXPECT_EQ(stops.nearest(1), 256u);
    EXPECT_EQ(stops.nearest(1000000), 131072u);
}

} // namespace
} // namespace llamafit
