// GraphReplay (core/sizing/graphreplay.h), ggml-alloc's graph allocator, on small graphs whose
// plans are worked by hand: in-place reuse of a dying source or of the tensor a reshape shows,
// frees after the last reader through views, cache writes that take no memory, and outputs that
// are never freed.

#include "core/sizing/graphreplay.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using L = GraphReplay::Layout;
constexpr auto kInPlace = GraphReplay::Op::InPlace;

TEST(GraphReplay, ReusesADyingSourceInPlaceAndFreesAfterTheLastReader) {
    GraphReplay g;
    const auto in = g.input(L{4, {8, 1, 1, 1}});               // 32 B at 0
    const auto a = g.node(L{4, {64, 1, 1, 1}}, {in});          // 256 B at 32; in freed
    const auto b = g.node(L{4, {64, 1, 1, 1}}, {a}, kInPlace); // takes a's block
    const auto c = g.node(L{4, {16, 1, 1, 1}}, {b});           // 64 B: fits in's hole? no (32 B): at 288
    g.node(L{4, {16, 1, 1, 1}}, {c, g.view(b)}, kInPlace);     // takes c's block
    EXPECT_EQ(g.plannedBytes(), 32u + 256u + 64u);
}

TEST(GraphReplay, AViewKeepsItsSourceAliveUntilTheViewIsRead) {
    GraphReplay g;
    const auto a = g.node(L{4, {64, 1, 1, 1}}, {}); // 256 B at 0
    const auto view = g.view(a);
    const auto b = g.node(L{4, {8, 1, 1, 1}}, {}); // 32 B at 256
    g.node(L{4, {64, 1, 1, 1}}, {b});              // 256 B at 288 (a still held by its view); b freed
    g.node(L{4, {64, 1, 1, 1}}, {view});           // 256 B: no hole of 256 yet -> at 544
    EXPECT_EQ(g.plannedBytes(), 800u);
}

TEST(GraphReplay, AnInPlaceNodeNeverTakesOverTheTensorAReshapeShows) {
    // ggml-alloc's is_own check denies every view, so RoPE over a reshaped Q gets its own memory.
    GraphReplay g;
    const auto a = g.node(L{4, {64, 1, 1, 1}}, {});      // 256 B at 0
    const auto flat = g.reshape(a, L{4, {16, 4, 1, 1}}); // a's only view, a read by nothing else
    const auto b = g.node(L{4, {8, 1, 1, 1}}, {});       // 32 B at 256
    g.node(L{4, {16, 4, 1, 1}}, {flat, b}, kInPlace);    // 256 B at 288; a freed after it
    EXPECT_EQ(g.plannedBytes(), 256u + 32u + 256u);
}

TEST(GraphReplay, APlainViewIsNeverTakenOver) {
    GraphReplay g;
    const auto a = g.node(L{4, {64, 1, 1, 1}}, {}); // 256 B at 0
    const auto strided = g.view(a);
    g.node(L{4, {64, 1, 1, 1}}, {strided}, kInPlace); // a is still held until this node: at 256
    EXPECT_EQ(g.plannedBytes(), 512u);
}

TEST(GraphReplay, ACacheWriteTakesNoMemoryButKeepsItsSourceUntilThen) {
    GraphReplay g;
    const auto a = g.node(L{4, {64, 1, 1, 1}}, {}); // 256 B at 0
    const auto b = g.node(L{4, {64, 1, 1, 1}}, {}); // 256 B at 256
    g.write({a});                                   // a freed here, nothing allocated
    g.node(L{4, {64, 1, 1, 1}}, {b});               // reuses a's hole
    EXPECT_EQ(g.plannedBytes(), 512u);
}

TEST(GraphReplay, AnOutputIsNeverFreedNorTakenOver) {
    GraphReplay g;
    const auto a = g.node(L{4, {64, 1, 1, 1}}, {}); // 256 B at 0
    g.markOutput(a);
    const auto b = g.node(L{4, {64, 1, 1, 1}}, {a}, kInPlace); // may not take a's block: at 256
    g.node(L{4, {64, 1, 1, 1}}, {b});                          // a not freed, b is read here: at 512
    EXPECT_EQ(g.plannedBytes(), 768u);
}

} // namespace
} // namespace llamafit
