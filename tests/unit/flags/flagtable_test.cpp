// The flag table itself and the per-flag parse result: one row per flag, each spelling in one
// row only, every setting written by one row, and what each word of a command line was read as.

#include "core/flags/flagtable.h"
#include "core/flags/serverargs.h"
#include "tests/unit/flags/parseok.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace llamafit {
namespace {

using test::parseOk;

TEST(FlagTable, EverySpellingBelongsToOneRow) {
    std::map<std::string, int> seen;
    for (const FlagRow& row : flagTable()) {
        for (std::string_view spelling : row.allSpellings()) {
            EXPECT_EQ(++seen[std::string(spelling)], 1) << spelling << " is in two rows";
            EXPECT_EQ(findFlag(spelling), &row) << spelling;
            EXPECT_EQ(spelling.front(), '-') << spelling;
        }
    }
    EXPECT_GT(seen.size(), 300u); // 0.7.0 lists about 330 spellings
}

TEST(FlagTable, RowsAreConsistentWithTheirKind) {
    for (const FlagRow& row : flagTable()) {
        const std::string name(row.canonicalSpelling());
        EXPECT_EQ(row.setting.has_value(), row.kind == FlagKind::Memory) << name;
        EXPECT_EQ(!row.reason.empty(), row.kind == FlagKind::NotModelled) << name;
        EXPECT_EQ(row.acceptsValue != nullptr, row.grammar == ValueGrammar::Optional) << name;
        if (row.kind == FlagKind::Memory || row.kind == FlagKind::LlamaFit) {
            EXPECT_NE(row.read, nullptr) << name;
        }
        if (row.write != nullptr) {
            EXPECT_EQ(row.kind, FlagKind::Memory) << name;
        }
    }
}

TEST(FlagTable, EverySettingIsWrittenByOneRowAndEveryIdHasARow) {
    for (int i = 0; i <= static_cast<int>(Setting::ImageMaxTokens); ++i) {
        const auto setting = static_cast<Setting>(i);
        int writers = 0;
        for (const FlagRow& row : flagTable()) {
            writers += row.setting == setting && row.write != nullptr ? 1 : 0;
        }
        // -kvu and -no-kvu each write one value of the unified-KV choice.
        EXPECT_EQ(writers, setting == Setting::KvUnified ? 2 : 1) << settingId(setting);
        EXPECT_EQ(flagRowOf(setting).setting, setting);
    }
    for (FlagId id : {FlagId::Model, FlagId::Host, FlagId::Port, FlagId::Metrics, FlagId::LogVerbosity,
                      FlagId::NoMmap, FlagId::Gpu, FlagId::IntegratedGpu, FlagId::Version, FlagId::Fit,
                      FlagId::FitTarget, FlagId::FitContext}) {
        EXPECT_EQ(flagRow(id).id, id);
    }
    EXPECT_EQ(flagRow(FlagId::Host).kind, FlagKind::Launcher);
    EXPECT_EQ(flagRow(FlagId::Gpu).kind, FlagKind::LlamaFit);
}

TEST(ParsedFlags, EachWordSaysWhatItIsAndWhatItSet) {
    const ParsedServerArgs parsed =
        parseOk({"-m", "a.gguf", "--ctx-size=8192", "-fa", "-t", "4", "--port", "80", "--moe-cache-mib",
                 "512", "--gpu", "CUDA0=8192", "--no-mmap"});
    ASSERT_EQ(parsed.flags.size(), 8u);
    const ParsedFlag& model = parsed.flags[0];
    EXPECT_EQ(model.words, (std::vector<std::string>{"-m", "a.gguf"}));
    EXPECT_EQ(model.id, FlagId::Model);
    EXPECT_EQ(model.kind, FlagKind::Launcher);

    const ParsedFlag& context = parsed.flags[1];
    EXPECT_EQ(context.words, std::vector<std::string>{"--ctx-size=8192"});
    EXPECT_EQ(context.spelling, "--ctx-size");
    EXPECT_EQ(context.values, FlagValues{"8192"});
    EXPECT_EQ(context.kind, FlagKind::Memory);
    EXPECT_EQ(context.setting, Setting::Context);

    const ParsedFlag& flash = parsed.flags[2]; // bare -fa: the next word is not its value
    EXPECT_EQ(flash.words, std::vector<std::string>{"-fa"});
    EXPECT_TRUE(flash.values.empty());
    EXPECT_EQ(flash.setting, Setting::FlashAttention);

    EXPECT_EQ(parsed.flags[3].kind, FlagKind::PassThrough);
    EXPECT_EQ(parsed.flags[3].text(), "-t 4");
    EXPECT_EQ(parsed.flags[4].kind, FlagKind::Launcher);
    EXPECT_EQ(parsed.flags[4].id, FlagId::Port);
    EXPECT_EQ(parsed.flags[5].kind, FlagKind::NotModelled);
    EXPECT_FALSE(parsed.flags[5].reason.empty());
    EXPECT_EQ(parsed.flags[6].kind, FlagKind::LlamaFit);
    EXPECT_EQ(parsed.gpus.size(), 1u);
    EXPECT_EQ(parsed.settings.loadMode, LoadMode::None); // --no-mmap, after --gpu
}

// Builds before 0.7.0 sized the draft context by -cd; 0.7.0 gives it the target's context.
TEST(ParsedFlags, TheOldDraftContextSizeIsNotModelledAndSaysWhy) {
    const ParsedServerArgs parsed = parseOk({"--ctx-size-draft", "4096"});
    ASSERT_EQ(parsed.flags.size(), 1u);
    EXPECT_EQ(parsed.flags[0].kind, FlagKind::NotModelled);
    EXPECT_NE(parsed.flags[0].reason.find("0.7.0"), std::string_view::npos);
    EXPECT_EQ(parsed.settings, ServerSettings{});
}

TEST(ParsedFlags, PassThroughWordsKeepWhatTheLaunchPassesAsTyped) {
    const ParsedServerArgs parsed =
        parseOk({"-m", "a.gguf", "-c", "4096", "--port=9000", "-t", "2", "--gpu", "vulkan=4096",
                 "--control-vector-layer-range", "1", "5", "--no-warmup", "-ot", "exps=CPU"});
    EXPECT_EQ(passThroughWords(parsed),
              (std::vector<std::string>{"--port=9000", "-t", "2", "--control-vector-layer-range", "1", "5",
                                        "--no-warmup"}));
}

TEST(ParsedFlags, ErrorsCarryTheFlagAsTypedAndItsSetting) {
    Result<ParsedServerArgs> bad = parseServerArgs({"--cache-type-k", "q4_K"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "args.bad-value");
    EXPECT_EQ(bad.error().flag, "--cache-type-k");
    EXPECT_EQ(bad.error().settings, std::vector<Setting>{Setting::CacheTypeK});

    bad = parseServerArgs({"-np"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "args.missing-value");
    EXPECT_EQ(bad.error().flag, "-np");
    EXPECT_EQ(bad.error().settings, std::vector<Setting>{Setting::Parallel});

    bad = parseServerArgs({"--swa-full=1"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().flag, "--swa-full");

    bad = parseServerArgs({"--frobnicate=2"});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().code, "args.unknown-flag");
    EXPECT_EQ(bad.error().flag, "--frobnicate");
    EXPECT_TRUE(bad.error().settings.empty());
}

TEST(CopySetting, CopiesOnlyTheNamedField) {
    ServerSettings from;
    from.contextTokens = 1234;
    from.cacheTypeV = GgmlType::Q8_0;
    ServerSettings to;
    copySetting(Setting::Context, from, to);
    EXPECT_EQ(to.contextTokens, 1234u);
    EXPECT_EQ(to.cacheTypeV, GgmlType::F16);
    // Each setting copies its own field: after copying all of them the settings are equal.
    const ParsedServerArgs all = parseOk(
        {"-c",    "10",     "-np",    "2",  "-kvu",  "-ctk", "q8_0",       "-ctv",  "q4_0", "-fa",    "off",
         "-b",    "64",     "-ub",    "32", "-ngl",  "3",    "--swa-full", "-nkvo", "-ts",  "1,2",    "-ot",
         "x=CPU", "-cmoe",  "-ncmoe", "2",  "-lm",   "none", "-nr",        "-cram", "5",    "-ctxcp", "6",
         "-md",   "d.gguf", "-ngld",  "4",  "-ctkd", "q8_0", "-ctvd",      "q4_0"});
    ServerSettings copied;
    for (int i = 0; i <= static_cast<int>(Setting::ImageMaxTokens); ++i) {
        copySetting(static_cast<Setting>(i), all.settings, copied);
    }
    EXPECT_EQ(copied, all.settings);
}

} // namespace
} // namespace llamafit
