// Runs the built llamafit-cli for `plan --set` and `export --set`: the JSON's figures agree with
// each other (pool sums, the subsets against the safe --models-max), the set's machine and
// --machine, the exported files, and every bad input named with exit status 2.

#include "tests/support/commandrun.h"
#include "tests/support/modelfiles.h"
#include "tests/support/tempfolder.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

namespace llamafit {
namespace {

using Json = nlohmann::json;

struct ModelSetCliResult {
    int exitCode = -1;
    Json json;
    std::string text;
};

ModelSetCliResult runModelSetCli(const std::string& arguments) {
    test::CommandRun ran =
        test::runShellCommand(test::shellQuote(LLAMAFIT_CLI_PATH) + " " + arguments + " 2>&1");
    const std::size_t brace = ran.out.find('{');
    return ModelSetCliResult{ran.exitCode,
                             brace == std::string::npos ? Json()
                                                        : Json::parse(ran.out.substr(brace), nullptr, false),
                             std::move(ran.out)};
}

class ModelSetCommand : public ::testing::Test {
  protected:
    void SetUp() override {
        m_folder = test::makeTempFolder("modelsetcli");
        ASSERT_FALSE(m_folder.empty());
        ASSERT_TRUE(test::writeTinyModel(m_folder + "/alpha.gguf"));
        ASSERT_TRUE(test::writeTinyModel(m_folder + "/beta.gguf"));
        // Two cards and a file on an 8 GB card: the 8B model with the 1B one is too much.
        write("cards.json", R"({"machine": "rtx-4060-8gb", "models": [
            {"model": "llama-3-8b-q4_k_m", "name": "big", "args": ["-c", "8192", "-ngl", "99"]},
            {"model": "llama-3.2-1b-q8_0", "name": "small", "args": {"c": 4096, "ngl": 99}},
            {"model": "alpha.gguf", "args": ["-c", "512"]}]})");
        write("files.json", R"({"name": "pair", "models": [
            {"model": "alpha.gguf", "args": ["-c", "512", "-np", "1"]},
            {"model": "beta.gguf", "args": {"ctx-size": 256}}]})");
    }
    void TearDown() override { std::filesystem::remove_all(m_folder); }

    std::string write(const std::string& name, const std::string& text) {
        std::ofstream(m_folder + "/" + name) << text;
        return path(name);
    }
    std::string path(const std::string& name) const { return test::shellQuote(m_folder + "/" + name); }

    std::string m_folder;
};

TEST_F(ModelSetCommand, PlanJsonAddsUpAndItsSubsetsAgreeWithTheSafeModelsMax) {
    const ModelSetCliResult run = runModelSetCli("plan --set " + path("cards.json") + " --json");
    ASSERT_EQ(run.exitCode, 0) << run.text;
    const Json& json = run.json;
    EXPECT_EQ(json["machine"]["id"], "rtx-4060-8gb");
    EXPECT_EQ(json["machine"]["chosen_because"], "the set's \"machine\": rtx-4060-8gb");
    ASSERT_EQ(json["models"].size(), 3u);
    EXPECT_EQ(json["models"][2]["name"], "alpha");
    for (const Json& pool : json["pools"]) {
        std::uint64_t members = 0;
        for (const Json& member : pool["members"]) {
            members += member["at_load_bytes"].get<std::uint64_t>();
        }
        EXPECT_EQ(members, pool["llama_at_load_bytes"].get<std::uint64_t>()) << pool["name"];
    }
    // The safe --models-max, from the subsets: the largest size whose every subset fits.
    ASSERT_EQ(json["subsets"].size(), 7u);
    std::size_t fromSubsets = 0;
    for (std::size_t size = 1; size <= 3; ++size) {
        bool every = true;
        for (const Json& subset : json["subsets"]) {
            every = every && (subset["members"].size() != size || subset["verdict"] == "fits");
        }
        if (!every) {
            break;
        }
        fromSubsets = size;
    }
    EXPECT_EQ(json["models_max_safe"].get<std::size_t>(), fromSubsets);
    EXPECT_GE(json["models_max_at_load"].get<std::size_t>(), fromSubsets);
    EXPECT_LT(fromSubsets, 2u) << "the 8B and the 1B model with -ngl 99 do not both fit 8 GB";
    EXPECT_EQ(json["command"], "llama-server --models-preset cards.ini --models-max 1");
    EXPECT_EQ(json["verdict"], "does-not-fit");
}

TEST_F(ModelSetCommand, MachineOptionWinsOverTheSets) {
    const ModelSetCliResult run =
        runModelSetCli("plan --set " + path("cards.json") + " --json --machine rtx-3090-24gb");
    ASSERT_EQ(run.exitCode, 0) << run.text;
    EXPECT_EQ(run.json["machine"]["id"], "rtx-3090-24gb");
    EXPECT_EQ(run.json["models_max_safe"], 3);
    EXPECT_EQ(run.json["largest_fitting_set"], Json::array({"big", "small", "alpha"}));
}

TEST_F(ModelSetCommand, PlanTextStacksEachModelAndNamesTheSafeMax) {
    const ModelSetCliResult run = runModelSetCli("plan --set " + path("cards.json"));
    ASSERT_EQ(run.exitCode, 0) << run.text;
    EXPECT_NE(run.text.find("Model set 'cards' (3 models) on rtx-4060-8gb"), std::string::npos) << run.text;
    EXPECT_NE(run.text.find("= all together"), std::string::npos) << run.text;
    EXPECT_NE(run.text.find("big + small (does-not-fit)"), std::string::npos) << run.text;
    EXPECT_NE(run.text.find("Safe --models-max: 1"), std::string::npos) << run.text;
}

TEST_F(ModelSetCommand, ExportWritesThePresetAndTheLlamaSwapGroup) {
    const ModelSetCliResult ini =
        runModelSetCli("export --set " + path("files.json") + " --format ini --machine rtx-3090-24gb");
    ASSERT_EQ(ini.exitCode, 0) << ini.text;
    EXPECT_NE(ini.text.find(";   llama-server --models-preset pair.ini --models-max 2\nversion = 1\n"),
              std::string::npos)
        << ini.text;
    EXPECT_NE(ini.text.find("[alpha]\nmodel = " + m_folder + "/alpha.gguf\nc = 512\nnp = 1\n"),
              std::string::npos)
        << ini.text;
    EXPECT_NE(ini.text.find("[beta]\nmodel = " + m_folder + "/beta.gguf\nc = 256\n"), std::string::npos)
        << ini.text;
    const ModelSetCliResult swap =
        runModelSetCli("export --set " + path("files.json") + " --format llama-swap --machine rtx-3090-24gb");
    ASSERT_EQ(swap.exitCode, 0) << swap.text;
    EXPECT_NE(swap.text.find("groups:\n  \"pair\":\n    swap: false\n"), std::string::npos) << swap.text;
}

TEST_F(ModelSetCommand, BadInputsAreNamedWithExitStatusTwo) {
    const auto code = [](const ModelSetCliResult& run) {
        return run.json.is_object() && run.json.contains("error")
                   ? run.json["error"]["code"].get<std::string>()
                   : run.text;
    };
    const ModelSetCliResult missing = runModelSetCli("plan --json --set " + path("nope.json"));
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_EQ(code(missing), "modelset.unreadable");
    const ModelSetCliResult badJson =
        runModelSetCli("plan --json --set " + write("bad.json", "{\"models\": ["));
    EXPECT_EQ(badJson.exitCode, 2);
    EXPECT_EQ(code(badJson), "modelset.bad-json");
    const ModelSetCliResult machine =
        runModelSetCli("plan --json --set " + write("m.json", R"({"machine": "no-such-machine",
        "models": [{"model": "llama-3.2-1b-q8_0"}]})"));
    EXPECT_EQ(machine.exitCode, 2);
    EXPECT_EQ(code(machine), "machine.unknown-profile");
    const ModelSetCliResult flag = runModelSetCli(
        "plan --json --set " +
        write("f.json", R"({"models": [{"model": "llama-3.2-1b-q8_0", "args": ["-c", "x"]}]})") +
        " --machine cpu-only");
    EXPECT_EQ(flag.exitCode, 2);
    EXPECT_EQ(code(flag), "args.bad-value");
    EXPECT_NE(flag.text.find("model 'llama-3.2-1b-q8_0'"), std::string::npos) << flag.text;
    const ModelSetCliResult model =
        runModelSetCli("plan --json --set " + write("nf.json", R"({"models": [{"model": "gone.gguf"}]})") +
                       " --machine cpu-only");
    EXPECT_EQ(model.exitCode, 2);
    EXPECT_EQ(code(model), "model.not-found");
    const ModelSetCliResult stray = runModelSetCli("plan --set " + path("files.json") + " -c 512");
    EXPECT_EQ(stray.exitCode, 2);
    EXPECT_NE(stray.text.find("cli.unexpected-argument"), std::string::npos) << stray.text;
    const ModelSetCliResult card = runModelSetCli("export --set " + path("cards.json") + " --format ini");
    EXPECT_EQ(card.exitCode, 2);
    EXPECT_NE(card.text.find("export.no-model-file"), std::string::npos) << card.text;
    const ModelSetCliResult format =
        runModelSetCli("export --set " + path("files.json") + " --format sh --machine cpu-only");
    EXPECT_EQ(format.exitCode, 2);
    EXPECT_NE(format.text.find("cli.bad-value"), std::string::npos) << format.text;
}

} // namespace
} // namespace llamafit
