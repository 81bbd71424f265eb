// The compute buffers of a Mamba model whose leading blocks stay in host memory
// (core/sizing/offloadedmamba.h, offloadedmambaone.h, offloadedfalcon.h, hostmambascan.h) against
// llama-server 0.7.0's own on lavapipe, as logged in the recorded Vulkan matrix
// (tests/data/recorded/vulkan-lavapipe-b11669) and read from its allocation plans
// (scripts/alloc-plan/run-case.sh).
#include "core/common/units.h"
#include "core/sizing/offloadedmamba.h"

#include "core/sizing/hostmambascan.h"
#include "core/sizing/offloadedfalcon.h"
#include "core/sizing/offloadedmambaone.h"

#include "tests/unit/sizing/testmodels.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace llamafit {
namespace {

using test::leadingOnHost;
using Sized = test::SizedShape;

double deviceMiB(const Sized& setup, std::size_t hostBlocks, std::uint32_t slots) {
    const auto split = offloadedMambaTwo(setup.model, setup.kv, leadingOnHost(setup.model, hostBlocks));
    EXPECT_TRUE(split.has_value());
    return split ? toMiB(offloadedMambaTwoBytes(*split, 512, slots, slots)) : 0;
}

TEST(OffloadedMamba, PureMambaTwoCopiesEachWeightAndTakesYBack) {
    const Sized mamba2 = test::sizedShape("mamba2.json", std::nullopt, 1);
    ASSERT_EQ(mamba2.model.layers.size(), 24u);
    // mamba2_ngl0_np1: "Vulkan0 compute buffer size = 21.21 MiB".
    EXPECT_NEAR(deviceMiB(mamba2, 24, 1), 21.21, 0.005);
    // mamba2_ngl_part_np1 (-ngl 12: blocks 13-23 on the GPU, the output layer counted): "22.05 MiB",
    // the GPU's own blocks after the host's.
    EXPECT_NEAR(deviceMiB(mamba2, 13, 1), 22.05, 0.005);
}

TEST(OffloadedMamba, HybridHostLayersAttendOnTheCpu) {
    // granitehybrid_ngl0_np1 (a gated FFN after each of 32 layers, attention at 10, 13, 17, 27):
    // "Vulkan0 compute buffer size = 20.32 MiB".
    const Sized granite = test::sizedShape("granitehybrid.json", std::nullopt, 1);
    EXPECT_NEAR(deviceMiB(granite, granite.model.layers.size(), 1), 20.32, 0.005);
    // nemotron_h_l6_ngl0_np1 and _np4 (Mamba-2, relu² FFN, Mamba-2, FFN, Mamba-2, attention):
    // "173.25 MiB" both.
    const Sized nemotron = test::sizedShape("nemotron_h.json", 6, 1);
    EXPECT_NEAR(deviceMiB(nemotron, 6, 1), 173.25, 0.005);
    const Sized nemotronSlots = test::sizedShape("nemotron_h.json", 6, 4);
    EXPECT_NEAR(deviceMiB(nemotronSlots, 6, 4), 173.25, 0.005);
}

TEST(OffloadedMamba, GpuLayersFollowTheScheduler) {
    // granitehybrid_ngl_part_np1 (-ngl 16: layers 17-31 on the GPU, attention first): "25.13 MiB",
    // the first GPU Mamba-2 block's conv rows taken by the attention layer before it.
    const Sized granite = test::sizedShape("granitehybrid.json", std::nullopt, 1);
    EXPECT_NEAR(deviceMiB(granite, 17, 1), 25.13, 0.005);
    // nemotron_h_l6_ngl_part_np1 (-ngl 3: a relu² FFN with 89 MiB weights last on the host):
    // "175.73 MiB".
    const Sized nemotron = test::sizedShape("nemotron_h.json", 6, 1);
    EXPECT_NEAR(deviceMiB(nemotron, 4, 1), 175.73, 0.005);
}

TEST(OffloadedMamba, MambaOneScansEveryBlockOnTheCpu) {
    const Sized mamba = test::sizedShape("mamba.json", std::nullopt, 1);
    const auto deviceOf = [&](std::size_t hostBlocks) {
        const auto split = offloadedMambaOne(mamba.model, leadingOnHost(mamba.model, hostBlocks));
        EXPECT_TRUE(split.has_value());
        return split ? toMiB(offloadedMambaOneBytes(*split, 512, 1, 1)) : 0;
    };
    // mamba_ngl0_np1: "Vulkan0 compute buffer size = 16.52 MiB"; mamba_ngl_part_np1 (-ngl 12): 18.13,
    // the GPU's blocks taking y and the final states back.
    EXPECT_NEAR(deviceOf(24), 16.52, 0.005);
    EXPECT_NEAR(deviceOf(13), 18.13, 0.005);
    EXPECT_FALSE(offloadedMambaOne(mamba.model, leadingOnHost(mamba.model, 0)).has_value());
}

TEST(OffloadedMamba, FalconAttendsOnTheCpuBesideTheScan) {
    // falcon_h1_ngl0_np1: "Vulkan0 compute buffer size = 25.05 MiB".
    const Sized falcon = test::sizedShape("falcon-h1.json", std::nullopt, 1);
    const auto split =
        offloadedFalcon(falcon.model, falcon.kv, leadingOnHost(falcon.model, falcon.model.layers.size()));
    ASSERT_TRUE(split.has_value());
    EXPECT_NEAR(toMiB(offloadedFalconBytes(*split, 512, 1, 1)), 25.05, 0.005);
    // With GPU blocks after the host's: not read from a plan.
    EXPECT_FALSE(offloadedFalcon(falcon.model, falcon.kv, leadingOnHost(falcon.model, 10)).has_value());
}

TEST(OffloadedMamba, OnlyReplayedPlacementsAreFollowed) {
    // Every block on the GPU: mambaondevice.h's case.
    const Sized mamba2 = test::sizedShape("mamba2.json", std::nullopt, 1);
    EXPECT_FALSE(offloadedMambaTwo(mamba2.model, mamba2.kv, leadingOnHost(mamba2.model, 0)).has_value());
    // A host block after a GPU block: not llama.cpp's placement.
    LayerPlacement interleaved = leadingOnHost(mamba2.model, 3);
    interleaved.layerDevice[10] = kHostDevice;
    EXPECT_FALSE(offloadedMambaTwo(mamba2.model, mamba2.kv, interleaved).has_value());
    // Not a Mamba-2 model.
    const Sized qwen3 = test::sizedShape("qwen3.json", std::nullopt, 1);
    EXPECT_FALSE(offloadedMambaTwo(qwen3.model, qwen3.kv, leadingOnHost(qwen3.model, 4)).has_value());
}

double hostMiB(const Sized& setup, const HostScanInputs& inputs) {
    return toMiB(hostMambaScanBytes(recurrentBlockShape(setup.model), 512, 1, 1, inputs));
}

TEST(OffloadedMamba, TheHostScansOverItsInputs) {
    // "Vulkan_Host compute buffer size = " 21.74 MiB (mamba2, -ngl 0 and -ngl 12), 25.75
    // (granitehybrid -ngl 0: its KV cache's inputs too), 123.94 (nemotron_h, 6 blocks, -ngl 0).
    EXPECT_NEAR(hostMiB(test::sizedShape("mamba2.json", std::nullopt, 1), {}), 21.74, 0.005);
    EXPECT_NEAR(hostMiB(test::sizedShape("granitehybrid.json", std::nullopt, 1), {4096, 0, true}), 25.75,
                0.005);
    EXPECT_NEAR(hostMiB(test::sizedShape("nemotron_h.json", 6, 1), {4096, 0, true}), 123.94, 0.005);
    // Mamba-1 (mamba, -ngl 0 and -ngl 12): 13.60 MiB.
    EXPECT_NEAR(hostMiB(test::sizedShape("mamba.json", std::nullopt, 1), {}), 13.60, 0.005);
    // Falcon-H1 (-ngl 0 and part): 23.25 MiB, its attention's output waiting through the scan.
    EXPECT_NEAR(hostMiB(test::sizedShape("falcon-h1.json", std::nullopt, 1), {4096, 0, true}), 23.25, 0.005);
}

TEST(OffloadedMamba, JambasRefusedExpertsRunAboveTheGraphStart) {
    // jamba_l6_ngl0_np1 and _ngl_part_np1: "Vulkan_Host compute buffer size = 212.02 MiB": the graph
    // start up to its DUP (44.02 MiB), then gate, up and GLU of 2 of 16 experts (n_ff 14336) over 512
    // tokens, 56 MiB each. Without the experts the scan alone peaks far lower.
    const Sized jamba = test::sizedShape("jamba.json", 6, 1);
    HostScanInputs inputs{4096, 0, true};
    const double scanOnly = hostMiB(jamba, inputs);
    inputs.experts = 16;
    inputs.expertsUsed = 2;
    inputs.expertFeedForward = 14336;
    EXPECT_NEAR(hostMiB(jamba, inputs), 212.02, 0.005);
    EXPECT_LT(scanOnly, 100.0);
}

} // namespace
} // namespace llamafit
