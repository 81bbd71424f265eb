// RingBuffer: order, overwrite of the oldest, timestamps and the sliding window.

#include "core/common/ringbuffer.h"

#include <gtest/gtest.h>

#include <string>

namespace llamafit {
namespace {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

const Clock::time_point kStart = Clock::time_point{} + 1000s;

std::vector<int> values(const RingBuffer<int>& buffer) {
    std::vector<int> out;
    for (const auto& entry : buffer.entries()) {
        out.push_back(entry.value);
    }
    return out;
}

TEST(RingBuffer, FillsInOrder) {
    RingBuffer<int> buffer(4);
    EXPECT_TRUE(buffer.empty());
    EXPECT_EQ(buffer.capacity(), 4u);
    buffer.push(kStart, 1);
    buffer.push(kStart + 1s, 2);
    EXPECT_EQ(buffer.size(), 2u);
    EXPECT_FALSE(buffer.full());
    EXPECT_EQ(values(buffer), (std::vector<int>{1, 2}));
    EXPECT_EQ(buffer.oldest().value, 1);
    EXPECT_EQ(buffer.latest().value, 2);
    EXPECT_EQ(buffer.latest().time, kStart + 1s);
}

TEST(RingBuffer, OverwritesOldestWhenFull) {
    RingBuffer<int> buffer(3);
    for (int i = 1; i <= 7; ++i) {
        buffer.push(kStart + std::chrono::seconds(i), i);
    }
    EXPECT_TRUE(buffer.full());
    EXPECT_EQ(buffer.size(), 3u);
    EXPECT_EQ(values(buffer), (std::vector<int>{5, 6, 7}));
    EXPECT_EQ(buffer.at(0).time, kStart + 5s);
    EXPECT_EQ(buffer.at(2).time, kStart + 7s);
    EXPECT_EQ(buffer.pushedCount(), 7u);
}

TEST(RingBuffer, SinceGivesTheSlidingWindow) {
    RingBuffer<int> buffer(10);
    for (int i = 0; i < 15; ++i) {
        buffer.push(kStart + std::chrono::milliseconds(500 * i), i);
    }
    // Holds 5..14 (t = 2.5 s .. 7 s); the window from t = 5 s is 10..14.
    const auto window = buffer.since(kStart + 5s);
    ASSERT_EQ(window.size(), 5u);
    EXPECT_EQ(window.front().value, 10);
    EXPECT_EQ(window.back().value, 14);
    EXPECT_TRUE(buffer.since(kStart + 60s).empty());
    EXPECT_EQ(buffer.since(kStart).size(), 10u);
}

TEST(RingBuffer, ZeroCapacityHoldsOne) {
    RingBuffer<std::string> buffer(0);
    EXPECT_EQ(buffer.capacity(), 1u);
    buffer.push(kStart, "a");
    buffer.push(kStart + 1s, "b");
    EXPECT_EQ(buffer.size(), 1u);
    EXPECT_EQ(buffer.latest().value, "b");
}

TEST(RingBuffer, ClearStartsOver) {
    RingBuffer<int> buffer(2);
    buffer.push(kStart, 1);
    buffer.push(kStart, 2);
    buffer.push(kStart, 3);
    buffer.clear();
    EXPECT_TRUE(buffer.empty());
    EXPECT_EQ(buffer.pushedCount(), 0u);
    buffer.push(kStart, 9);
    EXPECT_EQ(values(buffer), (std::vector<int>{9}));
}

TEST(RingBuffer, CopyIsASnapshot) {
    RingBuffer<int> buffer(2);
    buffer.push(kStart, 1);
    const RingBuffer<int> snapshot = buffer;
    buffer.push(kStart, 2);
    buffer.push(kStart, 3);
    EXPECT_EQ(values(snapshot), (std::vector<int>{1}));
    EXPECT_EQ(values(buffer), (std::vector<int>{2, 3}));
}

} // namespace
} // namespace llamafit
