// parseBuildCapabilities and serverArgvForBuild on the real `--version` / `--help` text of
// llama-server 0.7.0 (tests/data/server/*-0.7.0.txt, captured from the Debian build b11669)
// and on a hand-written older-build excerpt (*-older-handwritten.txt, written from
// llama-server-conventions.md §1-§2: --no-mmap, --mlock, bare -fa, port 8080).

#include "core/server/buildargv.h"
#include "core/server/buildcapabilities.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace llamafit {
namespace {

std::string readData(const std::string& name) {
    std::ifstream in(std::string(LLAMAFIT_TEST_SERVER_DATA_DIR) + "/" + name);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

BuildCapabilities build070() {
    auto caps = parseBuildCapabilities(readData("version-0.7.0.txt"), readData("help-0.7.0.txt"));
    EXPECT_TRUE(caps.ok()) << (caps.ok() ? "" : caps.error().message);
    return caps.ok() ? *caps : BuildCapabilities{};
}

BuildCapabilities buildOlder() {
    auto caps = parseBuildCapabilities(readData("version-older-handwritten.txt"),
                                       readData("help-older-handwritten.txt"));
    EXPECT_TRUE(caps.ok()) << (caps.ok() ? "" : caps.error().message);
    return caps.ok() ? *caps : BuildCapabilities{};
}

TEST(BuildCapabilities, Reads070) {
    const BuildCapabilities caps = build070();
    EXPECT_EQ(caps.version, "0.7.0");
    ASSERT_TRUE(caps.buildNumber.has_value());
    EXPECT_EQ(*caps.buildNumber, 11669u);
    EXPECT_EQ(caps.commit, "Debian");
    EXPECT_EQ(caps.label(), "llama-server 0.7.0 (build 11669)");
    EXPECT_TRUE(caps.hasLoadMode);
    EXPECT_TRUE(caps.flashAttnTakesValue);
    EXPECT_TRUE(caps.gpuLayersTakesAuto);
    EXPECT_TRUE(caps.supportsArgvCheck);
    EXPECT_EQ(caps.defaultPort, 9931);
    for (const char* flag : {"-lm",
                             "--load-mode",
                             "-fa",
                             "--flash-attn",
                             "-kvu",
                             "-no-kvu",
                             "--no-kv-unified",
                             "-ctxcp",
                             "--swa-checkpoints",
                             "--metrics",
                             "-lv",
                             "--log-jsonl",
                             "--no-log-jsonl",
                             "-ot",
                             "--override-tensor",
                             "-t",
                             "--threads",
                             "--port",
                             "--host",
                             "--version"}) {
        EXPECT_TRUE(caps.knows(flag)) << flag;
    }
    EXPECT_FALSE(caps.knows("--no-mmap"));
    EXPECT_FALSE(caps.knows("--mlock"));
    EXPECT_FALSE(caps.knows("N")); // value hints are not flags
    EXPECT_FALSE(caps.knows("-----"));
    const std::vector<std::string> types{"f32",  "f16",    "bf16", "q8_0", "q4_0",
                                         "q4_1", "iq4_nl", "q5_0", "q5_1"};
    EXPECT_EQ(caps.cacheTypes, types);
}

TEST(BuildCapabilities, ReadsOlderBuild) {
    const BuildCapabilities caps = buildOlder();
    EXPECT_EQ(caps.version, "5560");
    ASSERT_TRUE(caps.buildNumber.has_value());
    EXPECT_EQ(*caps.buildNumber, 5560u);
    EXPECT_EQ(caps.commit, "a4417ddd");
    EXPECT_EQ(caps.label(), "llama-server 5560");
    EXPECT_FALSE(caps.hasLoadMode);
    EXPECT_FALSE(caps.flashAttnTakesValue);
    EXPECT_FALSE(caps.gpuLayersTakesAuto);
    EXPECT_EQ(caps.defaultPort, 8080);
    EXPECT_TRUE(caps.knows("--no-mmap"));
    EXPECT_TRUE(caps.knows("--mlock"));
    EXPECT_FALSE(caps.knows("-lm"));
    EXPECT_FALSE(caps.knows("-ctxcp"));
}

TEST(BuildCapabilities, RejectsTextWithoutVersionOrOptions) {
    auto noVersion = parseBuildCapabilities("usage: nothing\n", readData("help-0.7.0.txt"));
    ASSERT_FALSE(noVersion.ok());
    EXPECT_EQ(noVersion.error().code, "build.no-version");
    auto noHelp = parseBuildCapabilities(readData("version-0.7.0.txt"), "error: something\n");
    ASSERT_FALSE(noHelp.ok());
    EXPECT_EQ(noHelp.error().code, "build.no-help");
}

// The build number alone, as `--server PATH` and `launch` read it to size for that build.
TEST(BuildCapabilities, BuildNumberOfVersionReadsReleasesAndOlderBuilds) {
    EXPECT_EQ(buildNumberOfVersion(readData("version-0.7.0.txt")), std::optional<std::uint32_t>(11669));
    EXPECT_EQ(buildNumberOfVersion(readData("version-older-handwritten.txt")),
              std::optional<std::uint32_t>(5560));
    EXPECT_EQ(buildNumberOfVersion("usage: nothing\n"), std::nullopt);
}

ServerSettings sampleSettings() {
    ServerSettings settings;
    settings.contextTokens = 4096;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.flashAttention = FlashAttention::On;
    settings.loadMode = LoadMode::None;
    settings.gpuLayers = GpuLayers::count(12);
    return settings;
}

TEST(ServerArgvForBuild, Keeps070Spellings) {
    auto argv = serverArgvForBuild(sampleSettings(), "/m/a b.gguf", build070());
    ASSERT_TRUE(argv.ok()) << argv.error().message;
    const std::vector<std::string> expected{"-m",     "/m/a b.gguf", "-c",        "4096", "-ctk", "q8_0",
                                            "-fa",    "on",          "-ngl",      "12",   "-lm",  "none",
                                            "--host", "127.0.0.1",   "--metrics", "-lv",  "4"};
    EXPECT_EQ(argv->args, expected);
    EXPECT_TRUE(argv->notes.empty());
}

TEST(ServerArgvForBuild, RespellsForOlderBuild) {
    LaunchArgvOptions options;
    options.port = 18123;
    auto argv = serverArgvForBuild(sampleSettings(), "m.gguf", buildOlder(), options);
    ASSERT_TRUE(argv.ok()) << argv.error().message;
    const std::vector<std::string> expected{
        "-m",        "m.gguf", "-c",        "4096",   "-ctk",  "q8_0",      "-fa", "-ngl", "12",
        "--no-mmap", "--host", "127.0.0.1", "--port", "18123", "--metrics", "-lv", "4"};
    EXPECT_EQ(argv->args, expected);
    ASSERT_EQ(argv->notes.size(), 2u);
    EXPECT_NE(argv->notes[1].find("--no-mmap"), std::string::npos);
}

TEST(ServerArgvForBuild, FlashAttentionOffIsTheOlderDefault) {
    ServerSettings settings;
    settings.flashAttention = FlashAttention::Off;
    auto older = serverArgvForBuild(settings, "m.gguf", buildOlder());
    ASSERT_TRUE(older.ok());
    EXPECT_EQ(std::count(older->args.begin(), older->args.end(), "-fa"), 0);
    auto current = serverArgvForBuild(settings, "m.gguf", build070());
    ASSERT_TRUE(current.ok());
    EXPECT_NE(std::find(current->args.begin(), current->args.end(), "off"), current->args.end());
}

TEST(ServerArgvForBuild, AllGpuLayersBecomesANumberOnOlderBuilds) {
    ServerSettings settings;
    settings.gpuLayers = GpuLayers::all();
    auto current = serverArgvForBuild(settings, "m.gguf", build070());
    auto older = serverArgvForBuild(settings, "m.gguf", buildOlder());
    ASSERT_TRUE(current.ok());
    ASSERT_TRUE(older.ok());
    const auto ngl = [](const std::vector<std::string>& args) {
        const auto at = std::find(args.begin(), args.end(), "-ngl");
        return at == args.end() || at + 1 == args.end() ? std::string() : *(at + 1);
    };
    EXPECT_EQ(ngl(current->args), "all");
    EXPECT_EQ(ngl(older->args), "999");
}

TEST(ServerArgvForBuild, RefusesWhatTheBuildCannotExpress) {
    ServerSettings settings;
    settings.contextCheckpoints = 4; // -ctxcp is newer than the older build
    auto argv = serverArgvForBuild(settings, "m.gguf", buildOlder());
    ASSERT_FALSE(argv.ok());
    EXPECT_EQ(argv.error().code, "build.unsupported-setting");
    EXPECT_NE(argv.error().message.find("-ctxcp 4"), std::string::npos) << argv.error().message;
    EXPECT_NE(argv.error().message.find("llama-server 5560"), std::string::npos);

    ServerSettings q4k;
    q4k.cacheTypeV = GgmlType::Q4_K; // not an allowed cache type of 0.7.0
    auto rejected = serverArgvForBuild(q4k, "m.gguf", build070());
    ASSERT_FALSE(rejected.ok());
    EXPECT_EQ(rejected.error().code, "build.unsupported-setting");
    EXPECT_NE(rejected.error().message.find("q4_K"), std::string::npos) << rejected.error().message;
}

TEST(ServerArgvForBuild, ChecksExtraFlagsAgainstTheHelp) {
    LaunchArgvOptions options;
    options.extraArgs = {"--no-warmup", "-t", "2", "--no-mmap"};
    auto current = serverArgvForBuild({}, "m.gguf", build070(), options);
    ASSERT_FALSE(current.ok());
    EXPECT_EQ(current.error().code, "build.unknown-flag");
    EXPECT_NE(current.error().message.find("--no-mmap"), std::string::npos);
    options.extraArgs = {"--no-warmup", "-t", "2", "--port", "18001", "-cram=-1"};
    auto passed = serverArgvForBuild({}, "m.gguf", build070(), options);
    ASSERT_TRUE(passed.ok()) << passed.error().message;
    EXPECT_EQ(std::count(passed->args.begin(), passed->args.end(), "--port"), 1); // the caller's port wins
}

} // namespace
} // namespace llamafit
