// GpuLayers: the -ngl value (auto, all, N) read and written as llama-server spells it.

#include "core/sizing/gpulayers.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(GpuLayers, TextRoundTrips) {
    for (const GpuLayers layers :
         {GpuLayers::automatic(), GpuLayers::all(), GpuLayers::count(0), GpuLayers::count(49)}) {
        EXPECT_EQ(GpuLayers::fromText(layers.text()), layers) << layers.text();
    }
    EXPECT_EQ(GpuLayers::count(12).text(), "12");
    EXPECT_EQ(GpuLayers::all().text(), "all");
}

TEST(GpuLayers, NegativeNumbersAreLlamaCppsAutoAndAll) {
    EXPECT_EQ(GpuLayers::fromText("-1"), GpuLayers::automatic());
    EXPECT_EQ(GpuLayers::fromText("-2"), GpuLayers::all());
    EXPECT_EQ(GpuLayers::fromText("-9"), GpuLayers::all());
}

TEST(GpuLayers, RejectsWhatIsNotACount) {
    for (const char* text : {"", "most", "12k", "4294967296", " 3"}) {
        EXPECT_EQ(GpuLayers::fromText(text), std::nullopt) << text;
    }
}

TEST(GpuLayers, AutoAndAllRequestEveryLayerPlusTheOutputLayer) {
    EXPECT_EQ(GpuLayers::automatic().requestedLayers(32), 33u);
    EXPECT_EQ(GpuLayers::all().requestedLayers(32), 33u);
    EXPECT_EQ(GpuLayers::count(10).requestedLayers(32), 10u);
    EXPECT_TRUE(GpuLayers::all().everyLayer());
    EXPECT_FALSE(GpuLayers::count(33).everyLayer());
    EXPECT_NE(GpuLayers::automatic(), GpuLayers::all());
}

} // namespace
} // namespace llamafit
