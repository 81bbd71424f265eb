// parseServerArgs / toServerArgs: every llama-server spelling LlamaFit reads, the older
// spellings it maps, the flags it only lists, the errors, and the round trip.

#include "core/flags/serverargs.h"
#include "tests/unit/flags/parseok.h"

#include "core/common/units.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using test::parseOk;

Error parseError(const std::vector<std::string>& args) {
    Result<ParsedServerArgs> parsed = parseServerArgs(args);
    EXPECT_FALSE(parsed.ok());
    return parsed.ok() ? Error{} : parsed.error();
}

TEST(ServerArgs, EmptyCommandLineGivesLlamaServerDefaults) {
    const ParsedServerArgs parsed = parseOk({});
    EXPECT_EQ(parsed.settings, ServerSettings{});
    EXPECT_TRUE(parsed.model.empty());
    EXPECT_TRUE(parsed.gpus.empty());
}

TEST(ServerArgs, ModelShortLongAndInline) {
    EXPECT_EQ(parseOk({"-m", "a.gguf"}).model, "a.gguf");
    EXPECT_EQ(parseOk({"--model", "b.gguf"}).model, "b.gguf");
    EXPECT_EQ(parseOk({"--model=c=d.gguf"}).model, "c=d.gguf");
}

TEST(ServerArgs, ContextSpellings) {
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"-c", "65536"}, {"--ctx-size", "65536"}, {"-c=65536"}, {"--ctx-size=65536"}}) {
        EXPECT_EQ(parseOk(args).settings.contextTokens, 65536u) << args[0];
    }
    EXPECT_EQ(parseOk({"-c", "0"}).settings.contextTokens, 0u);
}

TEST(ServerArgs, ParallelSlots) {
    EXPECT_EQ(parseOk({"-np", "2"}).settings.parallelSlots, 2u);
    EXPECT_EQ(parseOk({"--parallel", "3"}).settings.parallelSlots, 3u);
    EXPECT_EQ(parseOk({"-np", "-1"}).settings.parallelSlots, std::nullopt); // auto
    EXPECT_EQ(parseError({"-np", "0"}).code, "args.bad-value");             // llama.cpp refuses 0 too
}

TEST(ServerArgs, UnifiedKvSpellings) {
    EXPECT_EQ(parseOk({"-kvu"}).settings.kvUnified, true);
    EXPECT_EQ(parseOk({"--kv-unified"}).settings.kvUnified, true);
    EXPECT_EQ(parseOk({"-no-kvu"}).settings.kvUnified, false);
    EXPECT_EQ(parseOk({"--no-kv-unified"}).settings.kvUnified, false);
    EXPECT_EQ(parseOk({"-kvu", "-no-kvu"}).settings.kvUnified, false); // last one wins
}

TEST(ServerArgs, CacheTypes) {
    const ParsedServerArgs parsed = parseOk({"-ctk", "q8_0", "--cache-type-v", "q4_0"});
    EXPECT_EQ(parsed.settings.cacheTypeK, GgmlType::Q8_0);
    EXPECT_EQ(parsed.settings.cacheTypeV, GgmlType::Q4_0);
    EXPECT_EQ(parseOk({"--cache-type-k=bf16", "-ctv=iq4_nl"}).settings.cacheTypeV, GgmlType::IQ4_NL);
    const Error error = parseError({"-ctk", "q4_K"}); // 0.7.0: "Unsupported cache type: q4_K"
    EXPECT_EQ(error.code, "args.bad-value");
    EXPECT_NE(error.message.find("q4_K"), std::string::npos);
    EXPECT_NE(error.message.find("-ctk"), std::string::npos);
}

TEST(ServerArgs, FlashAttentionValuesAndBareLegacyFlag) {
    EXPECT_EQ(parseOk({"-fa", "on"}).settings.flashAttention, FlashAttention::On);
    EXPECT_EQ(parseOk({"--flash-attn", "off"}).settings.flashAttention, FlashAttention::Off);
    EXPECT_EQ(parseOk({"-fa", "auto"}).settings.flashAttention, FlashAttention::Auto);
    EXPECT_EQ(parseOk({"-fa=off"}).settings.flashAttention, FlashAttention::Off);
    EXPECT_EQ(parseOk({"-fa", "enabled"}).settings.flashAttention, FlashAttention::On);
    EXPECT_EQ(parseOk({"-fa", "0"}).settings.flashAttention, FlashAttention::Off);

    const ParsedServerArgs bare = parseOk({"-fa", "-c", "4096"});
    EXPECT_EQ(bare.settings.flashAttention, FlashAttention::On);
    EXPECT_EQ(bare.settings.contextTokens, 4096u);
    ASSERT_EQ(bare.notes.size(), 1u);
    EXPECT_NE(bare.notes[0].find("bare -fa"), std::string::npos);
    EXPECT_EQ(parseOk({"-fa"}).settings.flashAttention, FlashAttention::On);
    EXPECT_EQ(parseError({"-fa=maybe"}).code, "args.bad-value");
}

TEST(ServerArgs, BatchSizes) {
    const ParsedServerArgs parsed = parseOk({"-b", "4096", "-ub", "1024"});
    EXPECT_EQ(parsed.settings.batchTokens, 4096u);
    EXPECT_EQ(parsed.settings.ubatchTokens, 1024u);
    EXPECT_EQ(parseOk({"--batch-size", "256", "--ubatch-size", "128"}).settings.ubatchTokens, 128u);
}

TEST(ServerArgs, GpuLayersNumberAutoAll) {
    EXPECT_EQ(parseOk({"-ngl", "20"}).settings.gpuLayers, GpuLayers::count(20));
    EXPECT_EQ(parseOk({"--n-gpu-layers", "0"}).settings.gpuLayers, GpuLayers::count(0));
    EXPECT_EQ(parseOk({"--gpu-layers", "99"}).settings.gpuLayers, GpuLayers::count(99));
    EXPECT_EQ(parseOk({"-ngl", "auto"}).settings.gpuLayers, GpuLayers::automatic());
    EXPECT_EQ(parseOk({"-ngl", "all"}).settings.gpuLayers, GpuLayers::all());
    // llama.cpp stores auto as -1 and all as -2; any negative count puts every layer on the GPUs.
    EXPECT_EQ(parseOk({"-ngl", "-1"}).settings.gpuLayers, GpuLayers::automatic());
    EXPECT_EQ(parseOk({"-ngl", "-2"}).settings.gpuLayers, GpuLayers::all());
    EXPECT_EQ(parseOk({"-ngl", "-7"}).settings.gpuLayers, GpuLayers::all());
    EXPECT_EQ(parseError({"-ngl", "most"}).code, "args.bad-value");
}

TEST(ServerArgs, Switches) {
    const ParsedServerArgs parsed = parseOk({"--swa-full", "-nkvo", "-cmoe", "-nr"});
    EXPECT_TRUE(parsed.settings.swaFull);
    EXPECT_FALSE(parsed.settings.kvOffload);
    EXPECT_TRUE(parsed.settings.cpuMoe);
    EXPECT_FALSE(parsed.settings.repack);
    const ParsedServerArgs longSpellings = parseOk({"--no-kv-offload", "--cpu-moe", "--no-repack"});
    EXPECT_FALSE(longSpellings.settings.kvOffload);
    EXPECT_TRUE(longSpellings.settings.cpuMoe);
    EXPECT_FALSE(longSpellings.settings.repack);
    const ParsedServerArgs positive = parseOk({"-nkvo", "--kv-offload", "-nr", "--repack"});
    EXPECT_TRUE(positive.settings.kvOffload);
    EXPECT_TRUE(positive.settings.repack);
    EXPECT_EQ(parseError({"--swa-full=on"}).code, "args.bad-value");
}

TEST(ServerArgs, TensorSplitCommaOrSlash) {
    EXPECT_EQ(parseOk({"-ts", "3,1"}).settings.tensorSplit, (std::vector<double>{3, 1}));
    EXPECT_EQ(parseOk({"--tensor-split", "0.6/0.4"}).settings.tensorSplit, (std::vector<double>{0.6, 0.4}));
    EXPECT_EQ(parseError({"-ts", "1,a"}).code, "args.bad-value");
}

// llama-server 0.7.0 refuses what std::stof cannot hold ("error while handling argument
// \"-ts\": stof", measured for 1e308, 1e39 and 1e-39); 3.4e38 and 1e-30 load.
TEST(ServerArgs, TensorSplitSharesAFloatCannotHoldAreRefusedAsLlamaServerDoes) {
    for (const char* split : {"1e308,1", "1e39,1", "1,1e-39", "-1,1", "nan,1", "inf,1"}) {
        EXPECT_EQ(parseError({"-ts", split}).code, "args.bad-value") << split;
    }
    EXPECT_EQ(parseOk({"-ts", "3.4e38,1"}).settings.tensorSplit.size(), 2U);
    EXPECT_EQ(parseOk({"-ts", "1e-30,1"}).settings.tensorSplit.size(), 2U);
    EXPECT_EQ(parseOk({"-ts", "0,0"}).settings.tensorSplit, (std::vector<double>{0, 0}));
}

TEST(ServerArgs, TensorOverridesCommaListAndRepeated) {
    const ParsedServerArgs parsed =
        parseOk({"-ot", "blk\\.1\\.ffn=CPU,exps=CUDA0", "--override-tensor", "attn=CUDA1"});
    const std::vector<TensorOverride> expected{
        {"blk\\.1\\.ffn", "CPU"}, {"exps", "CUDA0"}, {"attn", "CUDA1"}};
    EXPECT_EQ(parsed.settings.tensorOverrides, expected);
    EXPECT_EQ(parseOk({"-ot=a=CPU"}).settings.tensorOverrides, (std::vector<TensorOverride>{{"a", "CPU"}}));
    EXPECT_EQ(parseError({"-ot", "noequals"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"-ot", "a="}).code, "args.bad-value");
}

TEST(ServerArgs, CpuMoeLayers) {
    EXPECT_EQ(parseOk({"-ncmoe", "12"}).settings.cpuMoeLayers, 12u);
    EXPECT_EQ(parseOk({"--n-cpu-moe", "3"}).settings.cpuMoeLayers, 3u);
    EXPECT_EQ(parseError({"-ncmoe", "-1"}).code, "args.bad-value");
}

TEST(ServerArgs, LoadModesAndOlderMmapFlags) {
    EXPECT_EQ(parseOk({"-lm", "none"}).settings.loadMode, LoadMode::None);
    EXPECT_EQ(parseOk({"--load-mode", "mmap"}).settings.loadMode, LoadMode::Mmap);
    EXPECT_EQ(parseOk({"-lm", "auto"}).settings.loadMode, LoadMode::Auto);
    EXPECT_EQ(parseOk({"-lm", "mlock"}).settings.loadMode, LoadMode::None);
    EXPECT_EQ(parseOk({"-lm", "mmap+mlock"}).settings.loadMode, LoadMode::Mmap);
    EXPECT_EQ(parseOk({"-lm", "dio"}).settings.loadMode, LoadMode::None);
    EXPECT_EQ(parseError({"-lm", "fast"}).code, "args.bad-value");

    const ParsedServerArgs noMmap = parseOk({"--no-mmap"});
    EXPECT_EQ(noMmap.settings.loadMode, LoadMode::None);
    ASSERT_EQ(noMmap.notes.size(), 1u);
    EXPECT_NE(noMmap.notes[0].find("--no-mmap"), std::string::npos);
    EXPECT_EQ(parseOk({"--mlock"}).settings.loadMode, LoadMode::None);
    EXPECT_EQ(parseOk({"--mmap"}).settings.loadMode, LoadMode::Mmap);
}

TEST(ServerArgs, GpuDevicesWithBackendsAndNames) {
    const ParsedServerArgs parsed =
        parseOk({"--gpu", "cuda:RTX4060=8192", "--gpu", "cuda=24576", "--gpu", "Vulkan0=16384", "--gpu-igpu",
                 "vulkan:890M=32768", "--gpu=Other Card=1024"});
    ASSERT_EQ(parsed.gpus.size(), 5u);
    EXPECT_EQ(parsed.gpus[0].name, "RTX4060");
    EXPECT_EQ(parsed.gpus[0].backend, Backend::Cuda);
    EXPECT_EQ(parsed.gpus[0].memoryBytes, 8192 * kMiB);
    EXPECT_EQ(parsed.gpus[1].name, "CUDA1"); // second CUDA device, numbered like llama.cpp
    EXPECT_EQ(parsed.gpus[1].backend, Backend::Cuda);
    EXPECT_EQ(parsed.gpus[2].backend, Backend::Vulkan); // told by the buffer-style name
    EXPECT_FALSE(parsed.gpus[2].integrated);
    EXPECT_TRUE(parsed.gpus[3].integrated);
    EXPECT_EQ(parsed.gpus[3].backend, Backend::Vulkan);
    EXPECT_EQ(parsed.gpus[4].name, "Other Card");
    EXPECT_EQ(parsed.gpus[4].backend, Backend::Other);

    EXPECT_EQ(parseError({"--gpu", "RTX=lots"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"--gpu", "RTX"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"--gpu", "tpu:X=100"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"--gpu", "A=100", "--gpu", "A=200"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"--gpu", "=100"}).code, "args.bad-value");
}

TEST(ServerArgs, RpcServersAreDevicesBeforeTheLocalGpus) {
    // --rpc is llama-server's; --gpu rpc:HOST:PORT=MiB gives a server's free memory. Whatever the
    // order typed, the RPC devices come first, in --rpc order (src/llama.cpp).
    const ParsedServerArgs parsed =
        parseOk({"--gpu", "vulkan=2048", "--gpu", "rpc:127.0.0.1:50053=1000", "--rpc", "127.0.0.1:50052",
                 "--rpc=127.0.0.1:50053", "--gpu", "rpc:127.0.0.1:50052=24105"});
    EXPECT_EQ(parsed.settings.rpcServers, (std::vector<std::string>{"127.0.0.1:50052", "127.0.0.1:50053"}));
    ASSERT_EQ(parsed.gpus.size(), 3u);
    EXPECT_EQ(parsed.gpus[0].name, "RPC0[127.0.0.1:50052]");
    EXPECT_EQ(parsed.gpus[0].backend, Backend::Rpc);
    EXPECT_EQ(parsed.gpus[0].memoryBytes, 24105 * kMiB);
    EXPECT_EQ(parsed.gpus[1].name, "RPC0[127.0.0.1:50053]");
    EXPECT_EQ(parsed.gpus[2].name, "Vulkan0");
    EXPECT_TRUE(parsed.unmodelledFlags.empty());
    EXPECT_EQ(toServerArgs(parsed.settings),
              (std::vector<std::string>{"--rpc", "127.0.0.1:50052,127.0.0.1:50053"}));

    // --rpc alone parses (a recorded argv, the GUI's extra flags); the estimate asks for the memory.
    EXPECT_EQ(parseOk({"--rpc", "127.0.0.1:50052,127.0.0.1:50053"}).settings.rpcServers.size(), 2u);

    Error error = parseError({"--rpc", "127.0.0.1"});
    EXPECT_EQ(error.code, "args.bad-value");
    EXPECT_EQ(error.flag, "--rpc");
    EXPECT_EQ(error.settings, std::vector<Setting>{Setting::RpcServers});
    EXPECT_EQ(parseError({"--rpc", "127.0.0.1:50052", "--rpc", "127.0.0.1:50052"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"--gpu", "rpc=24105"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"--gpu", "rpc:127.0.0.1=24105"}).code, "args.bad-value");
    error = parseError({"--gpu", "rpc:127.0.0.1:50052=24105"});
    EXPECT_EQ(error.code, "args.bad-value");
    EXPECT_EQ(error.flag, "--gpu");
    EXPECT_NE(error.message.find("--rpc does not name"), std::string::npos) << error.message;
}

TEST(ServerArgs, OtherFlagsAreListedNotSized) {
    const ParsedServerArgs parsed =
        parseOk({"--port", "18080", "--no-warmup", "-t", "2", "-lv", "4", "-fit", "off", "--host=0.0.0.0",
                 "--control-vector-layer-range", "1", "5"});
    EXPECT_EQ(parsed.settings, ServerSettings{});
    const std::vector<std::string> expected{"--port 18080",
                                            "--no-warmup",
                                            "-t 2",
                                            "-lv 4",
                                            "-fit off",
                                            "--host 0.0.0.0",
                                            "--control-vector-layer-range 1 5"};
    EXPECT_EQ(parsed.ignoredFlags, expected);
    EXPECT_TRUE(parsed.unmodelledFlags.empty());
}

TEST(ServerArgs, MemoryFlagsTheEstimateDoesNotModelAreReported) {
    const ParsedServerArgs parsed = parseOk({"--moe-cache-mib", "512", "-devd", "CUDA1"});
    ASSERT_EQ(parsed.unmodelledFlags.size(), 2u);
    EXPECT_EQ(parsed.unmodelledFlags[0].rfind("--moe-cache-mib 512: ", 0), 0u);
    EXPECT_EQ(parsed.unmodelledFlags[1].rfind("-devd CUDA1: ", 0), 0u);
    EXPECT_TRUE(parsed.ignoredFlags.empty());
}

TEST(ServerArgs, Errors) {
    Error error = parseError({"--frobnicate"});
    EXPECT_EQ(error.code, "args.unknown-flag");
    EXPECT_NE(error.message.find("--frobnicate"), std::string::npos);

    error = parseError({"-c"});
    EXPECT_EQ(error.code, "args.missing-value");
    EXPECT_NE(error.message.find("-c"), std::string::npos);
    EXPECT_EQ(parseError({"--port"}).code, "args.missing-value");

    error = parseError({"-c", "4096k"});
    EXPECT_EQ(error.code, "args.bad-value");
    EXPECT_NE(error.message.find("4096k"), std::string::npos);
    EXPECT_EQ(parseError({"-c", "-5"}).code, "args.bad-value");
    EXPECT_EQ(parseError({"-c", "99999999999"}).code, "args.bad-value");

    EXPECT_EQ(parseError({"model.gguf"}).code, "args.unexpected-argument");
    EXPECT_EQ(parseError({"--no-warmup=1"}).code, "args.bad-value");
}

TEST(ServerArgs, ToServerArgsOfDefaultsIsEmpty) {
    EXPECT_TRUE(toServerArgs(ServerSettings{}).empty());
}

TEST(ServerArgs, ToServerArgsUses070Spellings) {
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q8_0;
    settings.loadMode = LoadMode::None;
    const std::vector<std::string> expected{"-c", "65536", "-ctk", "q8_0", "-ctv", "q8_0", "-lm", "none"};
    EXPECT_EQ(toServerArgs(settings), expected);
}

TEST(ServerArgs, EverySettingRoundTrips) {
    ServerSettings settings;
    settings.contextTokens = 10000;
    settings.parallelSlots = 3;
    settings.kvUnified = true;
    settings.cacheTypeK = GgmlType::BF16;
    settings.cacheTypeV = GgmlType::Q5_1;
    settings.flashAttention = FlashAttention::Off;
    settings.batchTokens = 1024;
    settings.ubatchTokens = 256;
    settings.gpuLayers = GpuLayers::count(17);
    settings.swaFull = true;
    settings.kvOffload = false;
    settings.tensorSplit = {0.1, 2.5, 1.0 / 3.0};
    settings.tensorOverrides = {{"blk\\.(1|2)\\.ffn_.*_exps", "CPU"}, {"output", "CUDA0"}};
    settings.cpuMoe = true;
    settings.cpuMoeLayers = 4;
    settings.loadMode = LoadMode::Mmap;
    settings.repack = false;
    settings.rpcServers = {"127.0.0.1:50052", "gpu-box:50053"};
    EXPECT_EQ(parseOk(toServerArgs(settings)).settings, settings);

    for (GpuLayers layers :
         {GpuLayers::all(), GpuLayers::automatic(), GpuLayers::count(0), GpuLayers::count(49)}) {
        ServerSettings ngl;
        ngl.gpuLayers = layers;
        ngl.kvUnified = false;
        ngl.flashAttention = FlashAttention::On;
        ngl.contextTokens = 0;
        EXPECT_EQ(parseOk(toServerArgs(ngl)).settings, ngl) << layers.text();
    }
}

TEST(ServerArgs, ParsedCommandLineRoundTripsThroughSettings) {
    const std::vector<std::string> args{"-c",   "32768", "-np", "2",        "-ctk", "q8_0",
                                        "-ctv", "q4_0",  "-fa", "on",       "-ngl", "all",
                                        "-ts",  "3,1",   "-ot", "exps=CPU", "-lm",  "none"};
    EXPECT_EQ(toServerArgs(parseOk(args).settings), args);
}

} // namespace
} // namespace llamafit
