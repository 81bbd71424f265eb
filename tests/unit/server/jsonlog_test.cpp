// JsonLog against a real llama-server 0.7.0 `--log-jsonl -lv 4` capture of the tiny model
// (tests/data/server/tiny-c512-log.jsonl, see its README), plus malformed and empty input.

#include "core/server/jsonlog.h"

#include "core/server/allocationlog.h"
#include "tests/unit/server/serverdata.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

AllocationLog parseText(const std::string& text) {
    auto log = parseAllocationLog(text);
    EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
    return log.ok() ? log.value() : AllocationLog{};
}

void expectHostRow(const FitMemoryBreakdown& breakdown) {
    EXPECT_EQ(breakdown.unit, "MiB");
    ASSERT_EQ(breakdown.rows.size(), 1u);
    const FitMemoryBreakdownRow& host = breakdown.rows[0];
    EXPECT_EQ(host.kind, BreakdownRowKind::Host);
    EXPECT_EQ(host.kindName, "host");
    EXPECT_EQ(host.name, "Host");
    EXPECT_TRUE(host.description.empty());
    EXPECT_EQ(host.selfMiB, 2);
    EXPECT_EQ(host.modelMiB, 0);
    EXPECT_EQ(host.contextMiB, 0);
    EXPECT_EQ(host.computeMiB, 1);
    EXPECT_FALSE(host.totalMiB);
    EXPECT_FALSE(host.freeMiB);
    EXPECT_FALSE(host.unaccountedMiB);
}

TEST(JsonLogTest, RealCaptureHasProjectionAndExitBreakdowns) {
    const std::string text = testdata::readServerCapture("tiny-c512-log.jsonl");
    ASSERT_FALSE(text.empty());
    const JsonLog log = parseJsonLog(text);
    EXPECT_TRUE(log.malformedLines.empty()) << log.malformedLines.front();
    ASSERT_EQ(log.breakdowns.size(), 2u);
    expectHostRow(log.breakdowns[0]);
    expectHostRow(log.breakdowns[1]);
    EXPECT_EQ(log.plainLog.rfind("srv  llama_server: initializing ...\n", 0), 0u);
}

TEST(JsonLogTest, PlainLogFeedsTheTextParserLikeATextLog) {
    const JsonLog json = parseJsonLog(testdata::readServerCapture("tiny-c512-log.jsonl"));
    const AllocationLog fromJson = parseText(json.plainLog);

    // The same run's lines as the text log prints them (msg fields of the capture, verbatim).
    const AllocationLog fromText =
        parseText("load_tensors:   CPU_Mapped model buffer size =     0.42 MiB\n"
                  "llama_context:        CPU  output buffer size =     0.00 MiB\n"
                  "llama_kv_cache:        CPU KV buffer size =     0.12 MiB\n"
                  "llama_kv_cache: size =    0.12 MiB (   512 cells,   2 layers,  "
                  "4/1 seqs), K (f16):    0.06 MiB, V (f16):    0.06 MiB\n"
                  "sched_reserve:        CPU compute buffer size =     1.64 MiB\n");
    ASSERT_EQ(fromText.kvCaches.size(), 1u);
    EXPECT_EQ(fromText.kvMiB.at("CPU"), 0.12);
    EXPECT_EQ(fromText.computeMiB.at("CPU"), 1.64);

    EXPECT_EQ(fromJson.modelMiB, fromText.modelMiB);
    EXPECT_EQ(fromJson.outputMiB, fromText.outputMiB);
    EXPECT_EQ(fromJson.kvMiB, fromText.kvMiB);
    EXPECT_EQ(fromJson.kvCaches, fromText.kvCaches);
    EXPECT_EQ(fromJson.computeMiB, fromText.computeMiB);
    ASSERT_TRUE(fromJson.context);
    EXPECT_EQ(fromJson.context->nCtx, 512u);
    EXPECT_TRUE(fromJson.reserveComplete);
    EXPECT_TRUE(fromJson.listening);

    // The text tables llama.cpp printed next to each JSON breakdown agree with it.
    ASSERT_EQ(fromJson.breakdownTables.size(), json.breakdowns.size());
    for (std::size_t i = 0; i < json.breakdowns.size(); ++i) {
        ASSERT_EQ(fromJson.breakdownTables[i].size(), json.breakdowns[i].rows.size());
        const MemoryBreakdownRow& table = fromJson.breakdownTables[i][0];
        const FitMemoryBreakdownRow& row = json.breakdowns[i].rows[0];
        EXPECT_EQ(table.name, row.name);
        EXPECT_EQ(table.selfMiB, row.selfMiB);
        EXPECT_EQ(table.modelMiB, row.modelMiB);
        EXPECT_EQ(table.contextMiB, row.contextMiB);
        EXPECT_EQ(table.computeMiB, row.computeMiB);
    }
}

TEST(JsonLogTest, DeviceAndBufferTypeRows) {
    // Shape of common/fit.cpp's rows for a GPU run (not producible on a CPU-only machine).
    const JsonLog log = parseJsonLog(
        R"({"type":"fit_memory_breakdown","data":{"unit":"MiB","rows":[)"
        R"({"kind":"device","name":"CUDA0","description":"NVIDIA RTX 4090","total":24080,"free":23000,)"
        R"("self":5000,"model":4000,"context":600,"compute":400,"unaccounted":80},)"
        R"({"kind":"buffer_type","name":"CPU_REPACK","self":10,"model":10,"context":0,"compute":0}]}})"
        "\n");
    EXPECT_TRUE(log.malformedLines.empty());
    ASSERT_EQ(log.breakdowns.size(), 1u);
    ASSERT_EQ(log.breakdowns[0].rows.size(), 2u);
    const FitMemoryBreakdownRow& gpu = log.breakdowns[0].rows[0];
    EXPECT_EQ(gpu.kind, BreakdownRowKind::Device);
    EXPECT_EQ(gpu.description, "NVIDIA RTX 4090");
    EXPECT_EQ(gpu.totalMiB, 24080);
    EXPECT_EQ(gpu.freeMiB, 23000);
    EXPECT_EQ(gpu.unaccountedMiB, 80);
    EXPECT_EQ(log.breakdowns[0].rows[1].kind, BreakdownRowKind::BufferType);
    EXPECT_EQ(log.breakdowns[0].rows[1].modelMiB, 10);
}

TEST(JsonLogTest, MalformedLinesAreRecordedNotFatal) {
    const std::string text =
        "{\"type\":\"log\",\"time\":1,\"level\":\"info\",\"msg\":\"first\\n\"}\n"
        "not json at all\n"
        "{\"type\":\"log\",\"msg\":42}\n"
        "[1,2]\n"
        "{\"type\":\"fit_memory_breakdown\",\"data\":{\"unit\":\"MiB\",\"rows\":[{\"self\":\"x\"}]}}\n"
        "{\"type\":\"fit_memory_breakdown\",\"data\":{}}\n"
        "{\"type\":\"something_newer\",\"x\":1}\n"
        "\r\n"
        "{\"type\":\"log\",\"time\":2,\"level\":\"info\",\"msg\":\"second\\n\"}\r\n"
        "{\"type\":\"log\",\"time\":3,\"level\":\"in"; // cut short by a crash
    const JsonLog log = parseJsonLog(text);
    EXPECT_EQ(log.plainLog, "first\nsecond\n");
    EXPECT_TRUE(log.breakdowns.empty());
    ASSERT_EQ(log.malformedLines.size(), 6u);
    EXPECT_EQ(log.malformedLines[0], "not json at all");
    EXPECT_EQ(log.malformedLines[1], "{\"type\":\"log\",\"msg\":42}");
    EXPECT_EQ(log.malformedLines[5], "{\"type\":\"log\",\"time\":3,\"level\":\"in");
}

TEST(JsonLogTest, EmptyInput) {
    EXPECT_EQ(parseJsonLog(""), JsonLog{});
    EXPECT_EQ(parseJsonLog("\n\n  \n"), JsonLog{});
}

} // namespace
} // namespace llamafit
