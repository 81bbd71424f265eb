// AllocationLog against real llama-server 0.7.0 logs (tests/data/logs, see its README for
// the command lines), plus a few lines in llama.cpp's printf formats for what a CPU-only
// machine cannot produce (GPU rows and buffers).

#include "core/server/allocationlog.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

std::string readLog(const std::string& name) {
    std::ifstream in(std::string(LLAMAFIT_TEST_LOGS_DIR) + "/" + name);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

AllocationLog parseLog(const std::string& name) {
    const std::string text = readLog(name);
    EXPECT_FALSE(text.empty()) << name;
    auto log = parseAllocationLog(text);
    EXPECT_TRUE(log.ok()) << (log.ok() ? "" : log.error().message);
    return log.ok() ? log.value() : AllocationLog{};
}

using Mib = std::map<std::string, double>;

TEST(AllocationLogTest, DenseSingleSlot) {
    const AllocationLog log = parseLog("llama1b-f16-c4096-np1.log");
    EXPECT_EQ(log.modelMiB, (Mib{{"CPU_Mapped", 2357.26}}));
    EXPECT_EQ(log.outputMiB, (Mib{{"CPU", 0.49}}));
    EXPECT_EQ(log.kvMiB, (Mib{{"CPU", 128.00}}));
    EXPECT_TRUE(log.rsMiB.empty());
    EXPECT_EQ(log.computeMiB, (Mib{{"CPU", 72.02}}));

    ASSERT_TRUE(log.context);
    EXPECT_EQ(log.context->nCtx, 4096u);
    EXPECT_EQ(log.context->nCtxSeq, 4096u);
    EXPECT_EQ(log.context->nSeqMax, 1u);
    EXPECT_EQ(log.context->nBatch, 2048u);
    EXPECT_EQ(log.context->nUbatch, 512u);
    EXPECT_EQ(log.context->nOutputsMax, 1u);
    EXPECT_FALSE(log.context->kvUnified);
    EXPECT_EQ(log.context->flashAttnRequested, "auto");
    EXPECT_EQ(log.context->flashAttentionActive, true);

    ASSERT_EQ(log.kvCaches.size(), 1u);
    const LoggedKvCache& kv = log.kvCaches[0];
    EXPECT_FALSE(kv.swa);
    EXPECT_FALSE(kv.announcedCells);
    EXPECT_EQ(kv.cells, 4096u);
    EXPECT_EQ(kv.layers, 16u);
    EXPECT_EQ(kv.seqMax, 1u);
    EXPECT_EQ(kv.streams, 1u);
    EXPECT_EQ(kv.typeK, "f16");
    EXPECT_EQ(kv.typeV, "f16");
    EXPECT_DOUBLE_EQ(kv.kMiB, 64.0);
    EXPECT_DOUBLE_EQ(kv.vMiB, 64.0);
    EXPECT_DOUBLE_EQ(kv.sizeMiB, 128.0);
    EXPECT_EQ(kv.bufferMiB, (Mib{{"CPU", 128.00}}));
    EXPECT_FALSE(log.recurrentState);

    EXPECT_TRUE(log.reserveComplete);
    EXPECT_TRUE(log.listening);
    EXPECT_FALSE(log.loadFailed);
    EXPECT_TRUE(log.errorLines.empty());

    // -fit off: only the exit table, printed after SIGTERM.
    ASSERT_EQ(log.breakdownTables.size(), 1u);
    ASSERT_EQ(log.breakdownTables[0].size(), 1u);
    const MemoryBreakdownRow& host = log.breakdownTables[0][0];
    EXPECT_EQ(host.name, "Host");
    EXPECT_FALSE(host.totalMiB);
    EXPECT_FALSE(host.unaccountedMiB);
    EXPECT_EQ(host.selfMiB, 2557);
    EXPECT_EQ(host.modelMiB, 2357);
    EXPECT_EQ(host.contextMiB, 128);
    EXPECT_EQ(host.computeMiB, 72);

    const auto devices = log.devices();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_EQ(devices[0].name, "CPU");
    EXPECT_TRUE(devices[0].host);
    EXPECT_DOUBLE_EQ(devices[0].modelMiB, 2357.26);
    EXPECT_DOUBLE_EQ(devices[0].kvMiB, 128.0);
    EXPECT_DOUBLE_EQ(devices[0].outputMiB, 0.49);
    EXPECT_DOUBLE_EQ(devices[0].computeMiB, 72.02);
    EXPECT_NEAR(devices[0].totalMiB(), 2357.26 + 128.0 + 0.49 + 72.02, 1e-9);
}

TEST(AllocationLogTest, PrefixlessLogParsesTheSame) {
    // --no-log-prefix --no-log-timestamps: same run, no "<time> <level> " in front.
    const AllocationLog plain = parseLog("llama1b-f16-c4096-np1-noprefix.log");
    const AllocationLog prefixed = parseLog("llama1b-f16-c4096-np1.log");
    EXPECT_EQ(plain, prefixed);
}

TEST(AllocationLogTest, AutoSlotsShareOneUnifiedCache) {
    const AllocationLog log = parseLog("llama1b-f16-c4096-npauto.log");
    ASSERT_TRUE(log.context);
    EXPECT_EQ(log.context->nSeqMax, 4u);
    EXPECT_TRUE(log.context->kvUnified);
    ASSERT_EQ(log.kvCaches.size(), 1u);
    EXPECT_EQ(log.kvCaches[0].cells, 4096u);
    EXPECT_EQ(log.kvCaches[0].seqMax, 4u);
    EXPECT_EQ(log.kvCaches[0].streams, 1u);
    EXPECT_EQ(log.outputMiB, (Mib{{"CPU", 1.96}}));
}

TEST(AllocationLogTest, ExplicitSlotsSplitTheContext) {
    const AllocationLog log = parseLog("llama1b-f16-c10000-np3.log");
    ASSERT_TRUE(log.context);
    EXPECT_EQ(log.context->nCtx, 10752u);
    EXPECT_EQ(log.context->nCtxSeq, 3584u);
    EXPECT_EQ(log.context->nSeqMax, 3u);
    EXPECT_FALSE(log.context->kvUnified);
    ASSERT_EQ(log.kvCaches.size(), 1u);
    EXPECT_EQ(log.kvCaches[0].cells, 3584u);
    EXPECT_EQ(log.kvCaches[0].streams, 3u);
    EXPECT_EQ(log.kvMiB, (Mib{{"CPU", 336.00}}));
    EXPECT_TRUE(log.errorLines.empty()); // the rounding message is a warning
}

TEST(AllocationLogTest, FlashAttentionOffWithQuantizedK) {
    const AllocationLog log = parseLog("llama1b-f16-c4096-np1-fa-off-q8k.log");
    ASSERT_TRUE(log.context);
    EXPECT_EQ(log.context->flashAttnRequested, "disabled");
    EXPECT_FALSE(log.context->flashAttentionActive); // no resolve line with -fa off
    EXPECT_FALSE(log.context->flashAttention());
    ASSERT_EQ(log.kvCaches.size(), 1u);
    EXPECT_EQ(log.kvCaches[0].typeK, "q8_0");
    EXPECT_EQ(log.kvCaches[0].typeV, "f16");
    EXPECT_DOUBLE_EQ(log.kvCaches[0].kMiB, 34.0);
    EXPECT_DOUBLE_EQ(log.kvCaches[0].vMiB, 64.0);
    EXPECT_EQ(log.computeMiB, (Mib{{"CPU", 286.03}}));
}

TEST(AllocationLogTest, LoadErrorIsReported) {
    const AllocationLog log = parseLog("llama1b-f16-fa-off-ctv-q8-error.log");
    EXPECT_TRUE(log.loadFailed);
    EXPECT_FALSE(log.reserveComplete);
    EXPECT_FALSE(log.listening);
    EXPECT_EQ(log.modelMiB, (Mib{{"CPU_Mapped", 2357.26}}));
    EXPECT_TRUE(log.kvCaches.empty());
    EXPECT_TRUE(log.computeMiB.empty());
    ASSERT_FALSE(log.errorLines.empty());
    EXPECT_EQ(log.errorLines[0],
              "llama_init_from_model: quantized V cache requires flash_attn to be enabled");
}

// ggml_abort's line has no log prefix: "<file>:<line>: <message>" (ggml.c). Log lines with a colon
// in their text are not mistaken for one.
TEST(AllocationLogTest, GgmlAbortMessageIsKept) {
    const auto log = parseAllocationLog(
        "0.10.130.854 I sched_reserve: reserving ...\n"
        "0.10.465.011 W resolve_fused_ops: Flash Attention not supported, set to disabled\n"
        "./src/ggml-backend.cpp:1089: pre-allocated tensor (conv_state_update-0 (copy of conv_state_last-0)) "
        "in "
        "a buffer (Vulkan0) that cannot run the operation (CPY)\n");
    ASSERT_TRUE(log.ok()) << log.error().message;
    EXPECT_EQ(log->abortMessage,
              "pre-allocated tensor (conv_state_update-0 (copy of conv_state_last-0)) in a "
              "buffer (Vulkan0) that cannot run the operation (CPY)");
    EXPECT_FALSE(log->reserveComplete);
    const auto plain = parseAllocationLog("0.00.480.905 I print_info: n_embd_head_k         = 256\n"
                                          "main.cpp: 12: not an abort\n"
                                          "load_tensors.cpp:x: nor this\n");
    ASSERT_TRUE(plain.ok()) << plain.error().message;
    EXPECT_EQ(plain->abortMessage, "");
}

TEST(AllocationLogTest, RepackedWeightsSumMappedPieces) {
    // b11669 logs one CPU_Mapped line per contiguous mapped run when tensors are repacked:
    // here 140.91 MiB (token_embd) and 32 small pieces of 0.01 MiB between repacked tensors.
    const std::string text = readLog("llama1b-q4_0-c4096-np1-repack.log");
    std::uint32_t mappedLines = 0;
    for (auto at = text.find("CPU_Mapped model buffer size"); at != std::string::npos;
         at = text.find("CPU_Mapped model buffer size", at + 1)) {
        ++mappedLines;
    }
    ASSERT_EQ(mappedLines, 33u);
    const AllocationLog log = parseLog("llama1b-q4_0-c4096-np1-repack.log");
    ASSERT_EQ(log.modelMiB.size(), 2u);
    EXPECT_NEAR(log.modelMiB.at("CPU_Mapped"), 140.91 + 32 * 0.01, 1e-9);
    EXPECT_DOUBLE_EQ(log.modelMiB.at("CPU_REPACK"), 662.91);
    EXPECT_EQ(log.modelLines,
              (std::map<std::string, std::uint32_t>{{"CPU_Mapped", mappedLines}, {"CPU_REPACK", 1}}));
    const auto devices = log.devices();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_NEAR(devices[0].modelMiB, 140.91 + 32 * 0.01 + 662.91, 1e-9);
    // The exit table lists CPU_REPACK as its own buffer-type row.
    ASSERT_EQ(log.breakdownTables.size(), 1u);
    ASSERT_EQ(log.breakdownTables[0].size(), 2u);
    EXPECT_EQ(log.breakdownTables[0][0].modelMiB, 141);
    EXPECT_EQ(log.breakdownTables[0][1].name, "CPU_REPACK");
    EXPECT_EQ(log.breakdownTables[0][1].modelMiB, 662);
}

TEST(AllocationLogTest, HybridRecurrentState) {
    const AllocationLog log = parseLog("qwen35moe-q8-c4096-npauto.log");
    EXPECT_EQ(log.modelMiB, (Mib{{"CPU_Mapped", 35183.10}}));
    EXPECT_EQ(log.outputMiB, (Mib{{"CPU", 3.79}}));
    ASSERT_EQ(log.kvCaches.size(), 1u);
    EXPECT_EQ(log.kvCaches[0].cells, 4096u);
    EXPECT_EQ(log.kvCaches[0].layers, 10u);
    EXPECT_EQ(log.kvMiB, (Mib{{"CPU", 80.00}}));
    ASSERT_TRUE(log.recurrentState);
    const LoggedRecurrentState& rs = *log.recurrentState;
    EXPECT_EQ(rs.cells, 4u);
    EXPECT_EQ(rs.layers, 40u);
    EXPECT_EQ(rs.seqMax, 4u);
    EXPECT_EQ(rs.rsSeq, 0u);
    EXPECT_EQ(rs.typeR, "f32");
    EXPECT_EQ(rs.typeS, "f32");
    EXPECT_EQ(rs.typeP, "f32");
    EXPECT_DOUBLE_EQ(rs.rMiB, 11.25);
    EXPECT_DOUBLE_EQ(rs.sMiB, 240.0);
    EXPECT_DOUBLE_EQ(rs.pMiB, 0.0);
    EXPECT_DOUBLE_EQ(rs.sizeMiB, 251.25);
    EXPECT_EQ(rs.bufferMiB, (Mib{{"CPU", 251.25}}));
    EXPECT_EQ(log.rsMiB, (Mib{{"CPU", 251.25}}));
    EXPECT_EQ(log.computeMiB, (Mib{{"CPU", 80.02}}));
    const auto devices = log.devices();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_DOUBLE_EQ(devices[0].rsMiB, 251.25);
}

TEST(AllocationLogTest, HybridSeparateStreams) {
    const AllocationLog log = parseLog("qwen35moe-q8-c32768-np4.log");
    ASSERT_TRUE(log.context);
    EXPECT_EQ(log.context->nCtxSeq, 8192u);
    ASSERT_EQ(log.kvCaches.size(), 1u);
    EXPECT_EQ(log.kvCaches[0].cells, 8192u);
    EXPECT_EQ(log.kvCaches[0].streams, 4u);
    EXPECT_EQ(log.kvMiB, (Mib{{"CPU", 640.00}}));
    EXPECT_EQ(log.computeMiB, (Mib{{"CPU", 84.02}}));
}

TEST(AllocationLogTest, SlidingWindowHasTwoCaches) {
    const AllocationLog log = parseLog("gemma3-q8-c8192-npauto.log");
    ASSERT_EQ(log.kvCaches.size(), 2u);
    const LoggedKvCache& dense = log.kvCaches[0];
    const LoggedKvCache& swa = log.kvCaches[1];
    EXPECT_FALSE(dense.swa);
    EXPECT_EQ(dense.announcedCells, 8192u);
    EXPECT_EQ(dense.cells, 8192u);
    EXPECT_EQ(dense.layers, 4u);
    EXPECT_EQ(dense.bufferMiB, (Mib{{"CPU", 32.00}}));
    EXPECT_TRUE(swa.swa);
    EXPECT_EQ(swa.announcedCells, 2560u);
    EXPECT_EQ(swa.cells, 2560u);
    EXPECT_EQ(swa.layers, 22u);
    EXPECT_EQ(swa.bufferMiB, (Mib{{"CPU", 55.00}}));
    EXPECT_EQ(log.kvMiB, (Mib{{"CPU", 87.00}})); // both caches' buffers
}

TEST(AllocationLogTest, SlidingWindowFullPerSlot) {
    const AllocationLog log = parseLog("gemma3-q8-c8192-np4-swafull.log");
    ASSERT_EQ(log.kvCaches.size(), 2u);
    for (const auto& kv : log.kvCaches) {
        EXPECT_EQ(kv.cells, 2048u);
        EXPECT_EQ(kv.streams, 4u);
    }
    EXPECT_DOUBLE_EQ(log.kvCaches[1].sizeMiB, 176.0);
}

TEST(AllocationLogTest, FitOnPrintsProjectionAndExitTables) {
    const AllocationLog log = parseLog("llama1b-f16-c4096-np1-fiton.log");
    ASSERT_EQ(log.breakdownTables.size(), 2u);
    EXPECT_EQ(log.breakdownTables[0], log.breakdownTables[1]);
    // The fit dry run prints no buffer lines of its own: one set, as with -fit off.
    EXPECT_EQ(log.modelMiB, (Mib{{"CPU_Mapped", 2357.26}}));
    EXPECT_EQ(log.kvCaches.size(), 1u);
    EXPECT_EQ(log.computeMiB, (Mib{{"CPU", 72.02}}));
}

TEST(AllocationLogTest, FinishedOnceReserveIsLogged) {
    const std::string text = readLog("qwen35moe-q8-c4096-npauto.log");
    const auto reserve = text.find("sched_reserve: reserve took");
    ASSERT_NE(reserve, std::string::npos);
    EXPECT_FALSE(allocationLogFinished(std::string_view(text).substr(0, reserve)));
    EXPECT_TRUE(allocationLogFinished(std::string_view(text).substr(0, reserve + 40)));
    EXPECT_TRUE(allocationLogFinished(readLog("llama1b-f16-fa-off-ctv-q8-error.log")));
}

TEST(AllocationLogTest, GpuLinesGroupByDevice) {
    // llama.cpp's formats for a CUDA run (src/llama-model.cpp, llama-context.cpp, common/fit.cpp).
    const auto log = parseAllocationLog("load_tensors:        CUDA0 model buffer size =  1000.00 MiB\n"
                                        "load_tensors:   CPU_Mapped model buffer size =   500.50 MiB\n"
                                        "load_tensors:    CUDA_Host model buffer size =    12.00 MiB\n"
                                        "llama_context:  CUDA_Host  output buffer size =     1.96 MiB\n"
                                        "llama_kv_cache:      CUDA0 KV buffer size =   120.00 MiB\n"
                                        "llama_kv_cache:        CPU KV buffer size =     8.00 MiB\n"
                                        "llama_kv_cache: size =  128.00 MiB (  4096 cells,  16 layers,  1/1 "
                                        "seqs), K (f16):   64.00 MiB, V (f16):   "
                                        "64.00 MiB\n"
                                        "sched_reserve:      CUDA0 compute buffer size =   300.00 MiB\n"
                                        "sched_reserve:  CUDA_Host compute buffer size =    20.00 MiB\n"
                                        "common_memory_breakdown_print: | memory breakdown [MiB] | total   "
                                        "free    self   model   context   compute    "
                                        "unaccounted |\n"
                                        "common_memory_breakdown_print: |   - CUDA0 (RTX 4090)   | 24077 =  "
                                        "945 + (19187 = 17904 +     384 +     898) + "
                                        "       3945 |\n"
                                        "common_memory_breakdown_print: |   - Host               |           "
                                        "      58271 = 58259 +       0 +      12    "
                                        "            |\n");
    ASSERT_TRUE(log.ok()) << log.error().message;
    const auto devices = log->devices();
    ASSERT_EQ(devices.size(), 2u);
    EXPECT_EQ(devices[0].name, "CPU");
    EXPECT_TRUE(devices[0].host);
    EXPECT_DOUBLE_EQ(devices[0].modelMiB, 512.5);
    EXPECT_DOUBLE_EQ(devices[0].kvMiB, 8.0);
    EXPECT_DOUBLE_EQ(devices[0].outputMiB, 1.96);
    EXPECT_DOUBLE_EQ(devices[0].computeMiB, 20.0);
    EXPECT_EQ(devices[1].name, "CUDA0");
    EXPECT_FALSE(devices[1].host);
    EXPECT_DOUBLE_EQ(devices[1].modelMiB, 1000.0);
    EXPECT_DOUBLE_EQ(devices[1].kvMiB, 120.0);
    EXPECT_DOUBLE_EQ(devices[1].computeMiB, 300.0);
    ASSERT_EQ(log->kvCaches.size(), 1u);
    EXPECT_EQ(log->kvCaches[0].bufferMiB, (Mib{{"CPU", 8.0}, {"CUDA0", 120.0}}));

    ASSERT_EQ(log->breakdownTables.size(), 1u);
    ASSERT_EQ(log->breakdownTables[0].size(), 2u);
    const MemoryBreakdownRow& gpu = log->breakdownTables[0][0];
    EXPECT_EQ(gpu.name, "CUDA0 (RTX 4090)");
    EXPECT_EQ(gpu.totalMiB, 24077);
    EXPECT_EQ(gpu.freeMiB, 945);
    EXPECT_EQ(gpu.selfMiB, 19187);
    EXPECT_EQ(gpu.modelMiB, 17904);
    EXPECT_EQ(gpu.contextMiB, 384);
    EXPECT_EQ(gpu.computeMiB, 898);
    EXPECT_EQ(gpu.unaccountedMiB, 3945);
}

TEST(AllocationLogTest, LaterReserveReplacesComputeSize) {
    const auto log = parseAllocationLog("sched_reserve:        CPU compute buffer size =    72.02 MiB\n"
                                        "sched_reserve:        CPU compute buffer size =    80.50 MiB\n");
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log->computeMiB, (Mib{{"CPU", 80.50}}));
}

TEST(AllocationLogTest, MalformedAllocationLineIsAnError) {
    const auto log = parseAllocationLog("load_tensors:   CPU_Mapped model buffer size =  2357.26 MiB\n"
                                        "llama_kv_cache: size = lots (4096 cells)\n");
    ASSERT_FALSE(log.ok());
    EXPECT_EQ(log.error().code, "server.malformed-line");
    EXPECT_NE(log.error().message.find("line 2"), std::string::npos);
}

TEST(AllocationLogTest, EmptyTextGivesEmptyLog) {
    const auto log = parseAllocationLog("");
    ASSERT_TRUE(log.ok());
    EXPECT_EQ(log.value(), AllocationLog{});
    EXPECT_TRUE(log->devices().empty());
}

TEST(AllocationLogTest, BufferTypesMapToDevices) {
    EXPECT_EQ(deviceOfBufferType("CPU_Mapped"), "CPU");
    EXPECT_EQ(deviceOfBufferType("CPU_REPACK"), "CPU");
    EXPECT_EQ(deviceOfBufferType("CPU"), "CPU");
    EXPECT_EQ(deviceOfBufferType("CUDA_Host"), "CPU");
    EXPECT_EQ(deviceOfBufferType("Vulkan_Host"), "CPU");
    EXPECT_EQ(deviceOfBufferType("BLAS"), "CPU");
    EXPECT_EQ(deviceOfBufferType("CUDA0"), "CUDA0");
    EXPECT_EQ(deviceOfBufferType("Vulkan1"), "Vulkan1");
    EXPECT_EQ(deviceOfBufferType("Metal_Mapped"), "Metal");
    EXPECT_FALSE(isHostBufferType("CUDA0"));
    EXPECT_TRUE(isHostBufferType("CUDA_Host"));
}

// Public logs of older builds (tests/data/public-logs): compute buffers under llama_context:
// and a recurrent-state line without the rs_seq count.
TEST(AllocationLogTest, OlderBuildLineShapes) {
    const auto log = parseAllocationLog("llama_context:      ROCm0 compute buffer size =   306.23 MiB\n"
                                        "llama_context:  ROCm_Host compute buffer size =    14.01 MiB\n"
                                        "llama_memory_recurrent:    Vulkan0 RS buffer size =   149.62 MiB\n"
                                        "llama_memory_recurrent: size =  149.62 MiB (     1 cells,  64 "
                                        "layers,  1 seqs), R (f32):    5.62 MiB, "
                                        "S (f32):  144.00 MiB\n");
    ASSERT_TRUE(log.ok()) << log.error().message;
    EXPECT_DOUBLE_EQ(log->computeMiB.at("ROCm0"), 306.23);
    EXPECT_DOUBLE_EQ(log->computeMiB.at("ROCm_Host"), 14.01);
    ASSERT_TRUE(log->recurrentState.has_value());
    EXPECT_EQ(log->recurrentState->seqMax, 1u);
    EXPECT_EQ(log->recurrentState->rsSeq, 0u);
    EXPECT_DOUBLE_EQ(log->recurrentState->sMiB, 144.00);
}

// A draft model (-md): after "loading draft model" the weights and context lines are the draft's,
// apart from the target's, and devices() counts both (lines of the real server 0.7.0).
TEST(AllocationLogTest, DraftModelLinesAreFiledUnderTheDraft) {
    const auto log = parseAllocationLog(
        "I load_tensors:   CPU_Mapped model buffer size =   456.93 MiB\n"
        "I load_tensors:   CPU_REPACK model buffer size =  3204.00 MiB\n"
        "I llama_context: n_seq_max             = 1\n"
        "I llama_kv_cache:        CPU KV buffer size =   512.00 MiB\n"
        "I llama_kv_cache: size =  512.00 MiB (  4096 cells,  32 layers,  1/1 seqs), K (f16):  256.00 MiB, "
        "V (f16):  256.00 MiB\n"
        "I sched_reserve:        CPU compute buffer size =   128.02 MiB\n"
        "I sched_reserve: reserve took 3.10 ms, sched copies = 1\n"
        "I common_speculative_init_result: loading draft model 'draft1b.gguf'\n"
        "I load_tensors:   CPU_Mapped model buffer size =  1252.41 MiB\n"
        "I llama_context: n_seq_max             = 1\n"
        "I llama_context:        CPU  output buffer size =     0.49 MiB\n"
        "I llama_kv_cache:        CPU KV buffer size =    68.00 MiB\n"
        "I llama_kv_cache: size =   68.00 MiB (  4096 cells,  16 layers,  1/1 seqs), K (q8_0):   34.00 MiB, "
        "V (q8_0):   34.00 MiB\n"
        "I sched_reserve:        CPU compute buffer size =    72.05 MiB\n"
        "I sched_reserve: reserve took 2.15 ms, sched copies = 1\n");
    ASSERT_TRUE(log.ok()) << log.error().message;
    EXPECT_DOUBLE_EQ(log->modelMiB.at("CPU_Mapped"), 456.93);
    EXPECT_DOUBLE_EQ(log->computeMiB.at("CPU"), 128.02);
    ASSERT_EQ(log->kvCaches.size(), 1u);
    ASSERT_TRUE(log->draftModelContext.has_value());
    EXPECT_FALSE(log->mtpContext.has_value());
    const LoggedDraftContext& draft = *log->draftModelContext;
    EXPECT_DOUBLE_EQ(draft.modelMiB.at("CPU_Mapped"), 1252.41);
    EXPECT_DOUBLE_EQ(draft.kvMiB.at("CPU"), 68.00);
    EXPECT_DOUBLE_EQ(draft.computeMiB.at("CPU"), 72.05);
    EXPECT_DOUBLE_EQ(draft.outputMiB.at("CPU"), 0.49);
    ASSERT_EQ(draft.kvCaches.size(), 1u);
    EXPECT_EQ(draft.kvCaches.front().typeK, "q8_0");
    EXPECT_TRUE(draft.reserveComplete);
    const std::vector<LoggedDevice> devices = log->devices();
    ASSERT_EQ(devices.size(), 1u);
    EXPECT_NEAR(devices.front().modelMiB, 456.93 + 3204.00 + 1252.41, 1e-9);
    EXPECT_NEAR(devices.front().computeMiB, 128.02 + 72.05, 1e-9);
}

} // namespace
} // namespace llamafit
