// llama.cpp's projection table next to LlamaFit's (core/server/projectioncheck.h), on the table
// the real llama-fit-params 0.7.0 printed for qwen2 on lavapipe (-c 4096 --fit-print on -lv 4).

#include "core/common/units.h"
#include "core/server/projectioncheck.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace llamafit {
namespace {

constexpr const char* kTable = "I common_memory_breakdown_print: | memory breakdown [MiB]                    "
                               "     | total   free    self   "
                               "model   context   compute    unaccounted |\n"
                               "I common_memory_breakdown_print: |   - Vulkan0 (llvmpipe (LLVM 15.0.6, 256 "
                               "bits)) |  2048 = 2048 + ( 450 =   "
                               "355 +      48 +      46) +        -450 |\n"
                               "I common_memory_breakdown_print: |   - Host                                  "
                               "     |                  438 =   "
                               "145 +       0 +     293                |\n"
                               "I common_memory_breakdown_print: |   - CPU_REPACK                            "
                               "     |                   10 =    "
                               "10 +       0 +       0                |\n";

TEST(ProjectionCheck, DevicesByPositionHostLastRepackSkipped) {
    Result<AllocationLog> log = parseAllocationLog(kTable);
    ASSERT_TRUE(log) << log.error().message;
    ASSERT_EQ(log->breakdownTables.size(), 1u);
    // 450 MiB and a bit on Vulkan0 (within 1 %), 858 MiB on the host (off).
    const std::vector<ProjectionCheckRow> rows =
        compareProjections(log->breakdownTables.front(), {453 * kMiB + 5, 858 * kMiB});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].device, "Vulkan0");
    EXPECT_EQ(rows[0].llamaCppMiB, 450);
    EXPECT_EQ(rows[0].llamaFitMiB, 453);
    EXPECT_NEAR(rows[0].differencePercent, 0.667, 0.001);
    EXPECT_FALSE(rows[0].differs);
    EXPECT_EQ(rows[1].device, "Host");
    EXPECT_EQ(rows[1].llamaCppMiB, 438);
    EXPECT_TRUE(rows[1].differs);
    EXPECT_GT(rows[1].differencePercent, 90.0);
}

TEST(ProjectionCheck, ADeviceLlamaFitDoesNotKnowComparesWithZero) {
    Result<AllocationLog> log = parseAllocationLog(kTable);
    ASSERT_TRUE(log);
    const std::vector<ProjectionCheckRow> rows =
        compareProjections(log->breakdownTables.front(), {438 * kMiB});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].llamaFitMiB, 0);
    EXPECT_TRUE(rows[0].differs);
    EXPECT_FALSE(rows[1].differs);
}

TEST(ProjectionCheck, BuildTagFromVersionLine) {
    EXPECT_EQ(buildTag("version: 0.7.0 (build 11669, commit Debian)\nbuilt with GNU"), "b11669");
    EXPECT_EQ(buildTag("version: 0.7.0"), std::nullopt);
    EXPECT_EQ(buildTag("(build x)"), std::nullopt);
}

TEST(ProjectionCheck, TheToolGetsTheMemoryFlagsAndPrintsItsProjection) {
    ServerSettings settings;
    settings.contextTokens = 8192;
    settings.kvUnified = true; // llama-server's own flag: llama-fit-params would refuse it
    const std::vector<std::string> args = projectionToolArgs("/models/a b.gguf", settings);
    ASSERT_GE(args.size(), 2u);
    EXPECT_EQ(args[0], "-m");
    EXPECT_EQ(args[1], "/models/a b.gguf"); // one argument, never split
    EXPECT_NE(std::find(args.begin(), args.end(), "8192"), args.end());
    EXPECT_EQ(std::find(args.begin(), args.end(), "-kvu"), args.end());
    const std::vector<std::string> tail(args.end() - 4, args.end());
    EXPECT_EQ(tail, (std::vector<std::string>{"--fit-print", "on", "-lv", "4"}));
}

TEST(ProjectionCheck, LlamaFitsSideIsMeasuredAsLlamaFitParamsMeasures) {
    ServerSettings settings;
    const ServerSettings measured = projectionSettings(settings);
    EXPECT_EQ(measured.parallelSlots, 1u); // llama.cpp's default, not llama-server's auto
    EXPECT_EQ(measured.outputReserve, OutputReserve::PerBatch);
    EXPECT_TRUE(measured.fitMeasurement);
    settings.parallelSlots = 3;
    EXPECT_EQ(projectionSettings(settings).parallelSlots, 3u);
}

TEST(ProjectionCheck, ALogWithoutATableIsANamedError) {
    const Result<std::vector<ProjectionCheckRow>> rows =
        checkProjection("main: error: failed to load model\n", MemoryEstimate{});
    ASSERT_FALSE(rows);
    EXPECT_EQ(rows.error().code, "verify.no-table");
}

TEST(ProjectionCheck, ALogCutShortFallsBackToThePrintedLines) {
    // A real run of the tool under load (0.7.0, tiny model): the logger's worker thread never
    // wrote the table, but stdout holds the same figures.
    constexpr const char* kCutLog =
        "0.00.010.388 I load_backend: loaded CPU backend from libggml-cpu-haswell.so\n"
        "0.00.010.956 I llama_fit_params: printing estimated memory in MiB to stdout (device, model, "
        "context, compute) ...\n";
    const std::vector<MemoryBreakdownRow> printed =
        parseProjectionPrint("Vulkan0 355 48 46 \nHost 145 0 293 \n");
    ASSERT_EQ(printed.size(), 2u);
    EXPECT_EQ(printed[0].name, "Vulkan0");
    EXPECT_EQ(printed[0].selfMiB, 449);
    EXPECT_TRUE(printed[0].freeMiB.has_value());
    EXPECT_FALSE(printed[1].freeMiB.has_value());

    MemoryEstimate estimate;
    const auto fromLog = checkProjection(kCutLog, estimate);
    ASSERT_FALSE(fromLog);
    const auto fromStdout = checkProjection(kCutLog, estimate, "Vulkan0 355 48 46 \nHost 145 0 293 \n");
    ASSERT_TRUE(fromStdout) << fromStdout.error().message;
    ASSERT_EQ(fromStdout->size(), 2u);
    EXPECT_EQ((*fromStdout)[0].device, "Vulkan0");
    EXPECT_EQ((*fromStdout)[0].llamaCppMiB, 449);
    EXPECT_EQ((*fromStdout)[1].device, "Host");
    EXPECT_EQ((*fromStdout)[1].llamaCppMiB, 438);
    // The table wins when the log has it.
    const auto both = checkProjection(kTable, estimate, "Vulkan0 1 1 1 \nHost 1 1 1 \n");
    ASSERT_TRUE(both);
    EXPECT_EQ((*both)[0].llamaCppMiB, 450);
}

TEST(ProjectionCheck, ALogCutAfterTheTableHeaderFallsBackToThePrintedLines) {
    // A real run of the tool under load (0.7.0, tiny model, two runs beside two busy cores): the
    // logger wrote the table's header and no row. Before, that empty table was "the table", and the
    // check settled on no rows at all.
    constexpr const char* kHeaderOnly =
        "0.00.033.634 I llama_fit_params: printing estimated memory in MiB to stdout (device, model, "
        "context, compute) ...\n"
        "0.00.046.717 I common_memory_breakdown_print: | memory breakdown [MiB] | total   free    self   "
        "model   context   compute    unaccounted |\n";
    MemoryEstimate estimate;
    const auto rows = checkProjection(kHeaderOnly, estimate, "Host 0 0 3 \n");
    ASSERT_TRUE(rows) << rows.error().message;
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].device, "Host");
    EXPECT_EQ((*rows)[0].llamaCppMiB, 3);

    // Cut inside the device rows: the Vulkan0 row is there, the Host row is not.
    const std::string withoutHost = std::string(kTable).substr(
        0, std::string(kTable).find("I common_memory_breakdown_print: |   - Host"));
    const auto fromStdout = checkProjection(withoutHost, estimate, "Vulkan0 355 48 46 \nHost 145 0 293 \n");
    ASSERT_TRUE(fromStdout) << fromStdout.error().message;
    ASSERT_EQ(fromStdout->size(), 2u);
    EXPECT_EQ((*fromStdout)[0].llamaCppMiB, 449); // the printed lines' sum, not the log's 450

    // Neither whole: a named error, never an empty answer.
    const auto neither = checkProjection(kHeaderOnly, estimate, "");
    ASSERT_FALSE(neither);
    EXPECT_EQ(neither.error().code, "verify.no-table");
}

} // namespace
} // namespace llamafit
