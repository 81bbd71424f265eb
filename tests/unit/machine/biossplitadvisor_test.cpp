// The BIOS split advisor on the seed: of the EVO-X2's 0.5/8/16/32/48 GiB carve-outs, 32/32 is
// the one that fits the model with margin and leaves the most system RAM; 48/16 starves the
// system side (the lilting.ch author's 48/16 crashed "not enough main memory").
#include "core/common/units.h"
#include "core/machine/biossplitadvisor.h"
#include "core/machine/carveoutchoices.h"
#include "tests/unit/machine/seedmachine.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(BiosSplitAdvisor, SeedRecommends32Of32) {
    Result<SplitAdvice> advice =
        adviseBiosSplit(test::seedModel(), test::seedSettings(), test::seedMachine());
    ASSERT_TRUE(advice.ok()) << advice.error().message;
    std::vector<std::uint64_t> sizes;
    for (const SplitEvaluation& split : advice->splits) {
        sizes.push_back(split.carveOutBytes);
    }
    const std::vector<std::uint64_t> expected{512 * kMiB, 8 * kGiB, 16 * kGiB, 32 * kGiB, 48 * kGiB};
    EXPECT_EQ(sizes, expected);
    ASSERT_TRUE(advice->recommended.has_value());
    const SplitEvaluation& best = advice->splits[*advice->recommended];
    EXPECT_EQ(best.carveOutBytes, 32 * kGiB);
    EXPECT_TRUE(best.current);
    EXPECT_EQ(best.verdict, FitVerdict::Fits);
    EXPECT_EQ(best.systemBytes, 32 * kGiB);
    // The seed's two sides: ~3 GB of VRAM left, ~19 GB of system RAM after the OS.
    EXPECT_GE(best.gpuSide.headroomBytes, static_cast<std::int64_t>(2 * kGiB + 512 * kMiB));
    EXPECT_GT(best.hostSide.headroomBytes, static_cast<std::int64_t>(18 * kGiB));
    for (std::size_t i = 0; i < 3; ++i) {
        EXPECT_EQ(advice->splits[i].gpuSide.verdict, FitVerdict::DoesNotFit) << i;
    }
    // 48/16: the GPU side fits easily, but 16 GiB minus the OS's 13 cannot hold the prompt
    // cache and checkpoints.
    const SplitEvaluation& big = advice->splits.back();
    EXPECT_EQ(big.gpuSide.verdict, FitVerdict::Fits);
    EXPECT_EQ(big.hostSide.verdict, FitVerdict::Tight);
    // The split below was passed over because the model does not fit its GPU side.
    EXPECT_EQ(advice->smallerSplit, SmallerSplitProblem::TooSmallForModel);
    EXPECT_EQ(freeSystemBytes(best), static_cast<std::uint64_t>(best.hostSide.worstHeadroomBytes));
    EXPECT_EQ(freeGpuBytes(best), static_cast<std::uint64_t>(best.gpuSide.headroomBytes));
    EXPECT_EQ(advice->estimate.devices.size(), 2u);
}

TEST(BiosSplitAdvisor, TypedInSizesReplaceTheKnownList) {
    const std::vector<std::uint64_t> typed{24 * kGiB, 40 * kGiB};
    Result<SplitAdvice> advice =
        adviseBiosSplit(test::seedModel(), test::seedSettings(), test::seedMachine(), {}, typed);
    ASSERT_TRUE(advice.ok());
    ASSERT_EQ(advice->splits.size(), 3u); // the typed sizes plus the current 32 GiB
    ASSERT_TRUE(advice->recommended.has_value());
    EXPECT_EQ(advice->splits[*advice->recommended].carveOutBytes, 32 * kGiB);
}

TEST(BiosSplitAdvisor, SmallerContextFitsASmallerCarveOutNever) {
    // The weights alone need ~26 GiB: no context change makes 16 GiB enough, and with no
    // fitting split there is no recommendation.
    Result<SplitAdvice> advice = adviseBiosSplit(test::seedModel(), test::seedSettings(), test::seedMachine(),
                                                 {}, {512 * kMiB, 8 * kGiB, 16 * kGiB});
    ASSERT_TRUE(advice.ok());
    // The current 32 GiB is always evaluated, so it is still the answer.
    ASSERT_TRUE(advice->recommended.has_value());
    EXPECT_EQ(advice->splits[*advice->recommended].carveOutBytes, 32 * kGiB);

    Result<Machine> small = findBuiltinMachine("gmktec-evo-x2-64gb-32-32");
    ASSERT_TRUE(small.ok());
    const std::optional<Machine> eight = withCarveOut(*small, 8 * kGiB);
    ASSERT_TRUE(eight.has_value());
    Result<SplitAdvice> none = adviseBiosSplit(test::seedModel(), test::seedSettings(), *eight, {},
                                               {512 * kMiB, 8 * kGiB, 16 * kGiB});
    ASSERT_TRUE(none.ok());
    EXPECT_FALSE(none->recommended.has_value());
    EXPECT_EQ(none->smallerSplit, SmallerSplitProblem::None);
}

TEST(BiosSplitAdvisor, DiscreteMachineIsNotAnApu) {
    Result<Machine> rtx = findBuiltinMachine("rtx-3090-24gb");
    ASSERT_TRUE(rtx.ok());
    Result<SplitAdvice> advice = adviseBiosSplit(test::seedModel(), test::seedSettings(), *rtx);
    ASSERT_FALSE(advice.ok());
    EXPECT_EQ(advice.error().code, "advisor.not-an-apu");
}

TEST(CarveOutChoices, KnownListsAndTypedLists) {
    EXPECT_EQ(knownCarveOutChoices(ApuFamily::StrixHalo, 64 * kGiB).bytes.back(), 48 * kGiB);
    EXPECT_EQ(knownCarveOutChoices(ApuFamily::StrixHalo, 128 * kGiB).bytes.back(), 96 * kGiB);
    const CarveOutChoices laptop = knownCarveOutChoices(ApuFamily::RyzenMobile, 32 * kGiB);
    EXPECT_EQ(laptop.bytes.front(), 512 * kMiB);
    EXPECT_EQ(laptop.bytes.back(), 24 * kGiB); // 3/4 of RAM with AMD Variable Graphics Memory
    EXPECT_FALSE(laptop.source.empty());
    EXPECT_EQ(knownCarveOutChoices(ApuFamily::IntelIgpu, 16 * kGiB).bytes.back(), 512 * kMiB);

    EXPECT_EQ(apuFamilyFromName("AMD Ryzen AI Max+ 395 w/ Radeon 8060S"), ApuFamily::StrixHalo);
    EXPECT_EQ(apuFamilyFromName("AMD Ryzen 7 7840U w/ Radeon 780M Graphics"), ApuFamily::RyzenMobile);
    EXPECT_EQ(apuFamilyFromName("AMD Ryzen AI 9 HX 370"), ApuFamily::RyzenMobile);
    EXPECT_EQ(apuFamilyFromName("Intel(R) Core(TM) i7-8550U Intel(R) UHD Graphics 620"),
              ApuFamily::IntelIgpu);
    EXPECT_EQ(apuFamilyFromName("AMD Ryzen 9 7950X"), ApuFamily::Other);

    Result<std::vector<std::uint64_t>> typed = parseCarveOutList("32,0.5,16,16");
    ASSERT_TRUE(typed.ok());
    const std::vector<std::uint64_t> expected{512 * kMiB, 16 * kGiB, 32 * kGiB};
    EXPECT_EQ(*typed, expected);
    for (const char* bad : {"", "8,,16", "-4", "lots", "16GB"}) {
        Result<std::vector<std::uint64_t>> error = parseCarveOutList(bad);
        ASSERT_FALSE(error.ok()) << bad;
        EXPECT_EQ(error.error().code, "machine.bad-value");
    }
}

} // namespace
} // namespace llamafit
