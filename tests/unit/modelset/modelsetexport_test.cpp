// exportSetPresetIni / exportSetLlamaSwapYaml: the whole text for a two-model set, the comments
// that state --models-max, and the refusals.
#include "core/modelset/modelsetexport.h"

#include <gtest/gtest.h>

namespace llamafit {
namespace {

SetExport twoModels(std::size_t safeModelsMax, std::vector<std::size_t> group) {
    ServerSettings alpha;
    alpha.contextTokens = 4096;
    alpha.parallelSlots = 1;
    ServerSettings beta;
    beta.contextTokens = 8192;
    beta.cacheTypeK = GgmlType::Q8_0;
    SetExport set;
    set.setName = "pair";
    set.machineName = "RTX 3090 24 GB";
    set.presetFileName = "pair.ini";
    set.members = {SetExportMember{"alpha", "/m/a.gguf", alpha, {}},
                   SetExportMember{"beta", "/m/b.gguf", beta, {"--no-warmup"}}};
    set.safeModelsMax = safeModelsMax;
    set.fittingGroup = std::move(group);
    return set;
}

TEST(ModelSetExport, PresetIniHasVersionOneSectionPerModelAndTheCommand) {
    const Result<std::string> ini = exportSetPresetIni(twoModels(2, {0, 1}));
    ASSERT_TRUE(ini) << ini.error().message;
    EXPECT_EQ(*ini, "; llama-server router preset for the model set 'pair', exported by LlamaFit.\n"
                    "; All 2 models fit together on RTX 3090 24 GB.\n"
                    "; --models-max 2 keeps at most that many loaded at once:\n"
                    ";   llama-server --models-preset pair.ini --models-max 2\n"
                    "version = 1\n"
                    "\n"
                    "[alpha]\n"
                    "model = /m/a.gguf\n"
                    "c = 4096\n"
                    "np = 1\n"
                    "\n"
                    "[beta]\n"
                    "model = /m/b.gguf\n"
                    "c = 8192\n"
                    "ctk = q8_0\n"
                    "no-warmup = true\n");
}

TEST(ModelSetExport, PresetIniSaysWhenNotEveryPairFits) {
    const Result<std::string> ini = exportSetPresetIni(twoModels(1, {0}));
    ASSERT_TRUE(ini) << ini.error().message;
    EXPECT_NE(ini->find("; Any 1 of these 2 models fit together on RTX 3090 24 GB, not every 2.\n"),
              std::string::npos)
        << *ini;
    EXPECT_NE(ini->find("--models-max 1\n"), std::string::npos) << *ini;
}

TEST(ModelSetExport, SaysWhenRunTimeGrowthIsWhatLimitsTheSet) {
    SetExport set = twoModels(1, {0});
    set.loadableModelsMax = 2;
    const Result<std::string> ini = exportSetPresetIni(set);
    ASSERT_TRUE(ini) << ini.error().message;
    EXPECT_NE(
        ini->find("; Right after load any 2 fit; the prompt caches (--cache-ram) and checkpoints they may "
                  "grow to keep it to 1.\n"),
        std::string::npos)
        << *ini;
}

TEST(ModelSetExport, NothingFittingStillExportsOneAtATime) {
    const SetExport set = twoModels(0, {});
    EXPECT_EQ(exportedModelsMax(set), 1U); // llama-server reads 0 as "no limit"
    const Result<std::string> ini = exportSetPresetIni(set);
    ASSERT_TRUE(ini) << ini.error().message;
    EXPECT_NE(ini->find("; Not every model fits alone on RTX 3090 24 GB"), std::string::npos) << *ini;
    const Result<std::string> yaml = exportSetLlamaSwapYaml(set);
    ASSERT_TRUE(yaml) << yaml.error().message;
    EXPECT_EQ(yaml->find("groups:"), std::string::npos) << *yaml;
}

TEST(ModelSetExport, LlamaSwapHasEveryModelAndAGroupOfThoseThatFit) {
    const Result<std::string> yaml = exportSetLlamaSwapYaml(twoModels(1, {1}));
    ASSERT_TRUE(yaml) << yaml.error().message;
    EXPECT_EQ(
        *yaml,
        "# llama-swap config for the model set 'pair', exported by LlamaFit.\n"
        "# Any 1 of these 2 models fit together on RTX 3090 24 GB, not every 2.\n"
        "models:\n"
        "  \"alpha\":\n"
        "    cmd: |\n"
        "      llama-server --port ${PORT} -m /m/a.gguf -c 4096 -np 1 --host 127.0.0.1\n"
        "  \"beta\":\n"
        "    cmd: |\n"
        "      llama-server --port ${PORT} -m /m/b.gguf -c 8192 -ctk q8_0 --host 127.0.0.1 --no-warmup\n"
        "groups:\n"
        "  \"pair\":\n"
        "    # left out, they do not fit together with these: alpha\n"
        "    swap: false\n"
        "    exclusive: true\n"
        "    members:\n"
        "      - \"beta\"\n");
}

TEST(ModelSetExport, ACardHasNoFileToExport) {
    SetExport set = twoModels(2, {0, 1});
    set.members[1].modelPath.clear();
    const Result<std::string> ini = exportSetPresetIni(set);
    ASSERT_FALSE(ini);
    EXPECT_EQ(ini.error().code, "export.no-model-file");
    EXPECT_NE(ini.error().message.find("'beta'"), std::string::npos);
}

TEST(ModelSetExport, AMemberBoundBeyondThisComputerIsRefused) {
    SetExport set = twoModels(2, {0, 1});
    set.members[0].extraArgs = {"--host", "0.0.0.0"};
    const Result<std::string> yaml = exportSetLlamaSwapYaml(set);
    ASSERT_FALSE(yaml);
    EXPECT_EQ(yaml.error().code, "launch.exposure-not-chosen");
}

TEST(ModelSetExport, AValueTheIniCannotHoldIsRefused) {
    SetExport set = twoModels(2, {0, 1});
    set.members[1].extraArgs = {"--alias", "a;b"};
    const Result<std::string> ini = exportSetPresetIni(set);
    ASSERT_FALSE(ini);
    EXPECT_EQ(ini.error().code, "export.unrepresentable");
}

} // namespace
} // namespace llamafit
