// AllocatorReplay against the behaviour of ggml-alloc's dynamic allocator it restates
// (ggml/src/ggml-alloc.c ggml_dyn_tallocr_alloc / ggml_dyn_tallocr_free_bytes).
#include "core/sizing/allocatorreplay.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(AllocatorReplay, SizesAreAlignedTo32Bytes) {
    AllocatorReplay a;
    const auto first = a.allocate(1);
    const auto second = a.allocate(33);
    EXPECT_EQ(first.offset, 0u);
    EXPECT_EQ(first.bytes, 32u);
    EXPECT_EQ(second.offset, 32u);
    EXPECT_EQ(second.bytes, 64u);
    EXPECT_EQ(a.peakBytes(), 96u);
    EXPECT_EQ(a.allocate(0).bytes, 0u);
    EXPECT_EQ(a.peakBytes(), 96u);
}

TEST(AllocatorReplay, BestFitPicksTheSmallestHoleThatFits) {
    AllocatorReplay a;
    const auto big = a.allocate(1024);
    a.allocate(32); // keeps the holes apart
    const auto small = a.allocate(256);
    a.allocate(32);
    a.release(big);
    a.release(small);
    const auto fits = a.allocate(200);
    EXPECT_EQ(fits.offset, small.offset);
    const auto onlyBig = a.allocate(512);
    EXPECT_EQ(onlyBig.offset, big.offset);
    const std::uint64_t peak = a.peakBytes();
    const auto tooBig = a.allocate(4096); // no hole holds it: the end, which grows the buffer
    EXPECT_EQ(tooBig.offset, peak);
    EXPECT_EQ(a.peakBytes(), peak + 4096);
}

TEST(AllocatorReplay, EqualHolesGoToTheLaterOne) {
    AllocatorReplay a;
    const auto first = a.allocate(128);
    a.allocate(32);
    const auto second = a.allocate(128);
    a.allocate(32);
    a.release(first);
    a.release(second);
    EXPECT_EQ(a.allocate(128).offset, second.offset); // ggml-alloc compares with "<="
}

TEST(AllocatorReplay, FreedNeighboursMergeIntoOneHole) {
    AllocatorReplay a;
    const auto x = a.allocate(100 * 32);
    const auto y = a.allocate(100 * 32);
    const auto z = a.allocate(100 * 32);
    a.allocate(32);
    a.release(x);
    a.release(z);
    a.release(y); // joins both neighbours
    const std::uint64_t peak = a.peakBytes();
    EXPECT_EQ(a.allocate(300 * 32).offset, 0u);
    EXPECT_EQ(a.peakBytes(), peak);
}

TEST(AllocatorReplay, FreeingTheTopHandsItBackToTheEnd) {
    AllocatorReplay a;
    a.allocate(64);
    const auto top = a.allocate(1024);
    a.release(top);
    // The end block now starts at 64 again: a bigger tensor lands there and grows the peak by
    // only what does not fit below the old high-water mark.
    const auto next = a.allocate(2048);
    EXPECT_EQ(next.offset, 64u);
    EXPECT_EQ(a.peakBytes(), 64u + 2048u);
}

} // namespace
} // namespace llamafit
