// parseModelSetFile / loadModelSetFile: both argument forms, paths made absolute against the set
// file's folder, and one named error per kind of bad file.
#include "core/modelset/modelsetfile.h"
#include "tests/support/tempfolder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace llamafit {
namespace {

Error parseError(std::string_view json) {
    const Result<ModelSetFile> set = parseModelSetFile(json, "", "set");
    EXPECT_FALSE(set) << json;
    return set ? Error{} : set.error();
}

TEST(ModelSetFile, ArgsAsWordsOrAsAnObjectOfFlags) {
    const Result<ModelSetFile> set = parseModelSetFile(R"({"format": "llamafit-model-set", "version": 1,
        "name": "coding", "machine": "rtx-3090-24gb", "models": [
          {"model": "/m/qwen.gguf", "args": ["-c", "32768", "-ngl", "99"]},
          {"model": "llama-3.2-1b-q8_0", "name": "small",
           "args": {"c": 4096, "ngl": 99, "--flash-attn": "on", "no-warmup": true, "temp": 0.5}}]})",
                                                       "", "file-stem");
    ASSERT_TRUE(set) << set.error().message;
    EXPECT_EQ(set->name, "coding");
    EXPECT_EQ(set->machine, "rtx-3090-24gb");
    ASSERT_EQ(set->models.size(), 2U);
    EXPECT_EQ(set->models[0], (ModelSetEntry{"qwen", "/m/qwen.gguf", {"-c", "32768", "-ngl", "99"}}));
    // A key without dashes is the long flag when there is one (--ctx-size has -c as its short form,
    // "c" is no long flag), else the short one: -ngl.
    EXPECT_EQ(set->models[1], (ModelSetEntry{"small",
                                             "llama-3.2-1b-q8_0",
                                             {"-c", "4096", "-ngl", "99", "--flash-attn", "on", "--no-warmup",
                                              "--temp", "0.5"}}));
}

TEST(ModelSetFile, RelativeModelPathsAreResolvedAgainstTheSetFilesFolder) {
    const std::string folder = test::makeTempFolder("modelsetfile");
    ASSERT_FALSE(folder.empty());
    std::filesystem::create_directory(folder + "/models");
    std::ofstream(folder + "/models/a.gguf") << "not read here";
    std::ofstream(folder + "/work.json")
        << R"({"models": [{"model": "models/a.gguf"}, {"model": "gone.gguf"}]})";
    const Result<ModelSetFile> set = loadModelSetFile(folder + "/work.json");
    ASSERT_TRUE(set) << set.error().message;
    EXPECT_EQ(set->name, "work"); // the file stem
    EXPECT_EQ(set->models[0].name, "a");
    EXPECT_EQ(set->models[0].model,
              std::filesystem::absolute(folder + "/models/a.gguf").lexically_normal().string());
    EXPECT_TRUE(std::filesystem::path(set->models[0].model).is_absolute());
    // Not a file there: kept as written (a card id, or model.not-found when it is loaded).
    EXPECT_EQ(set->models[1].model, "gone.gguf");
    std::filesystem::remove_all(folder);
}

TEST(ModelSetFile, AMissingFileIsUnreadable) {
    const Result<ModelSetFile> set = loadModelSetFile("/nonexistent/llamafit/set.json");
    ASSERT_FALSE(set);
    EXPECT_EQ(set.error().code, "modelset.unreadable");
    EXPECT_NE(set.error().message.find("/nonexistent/llamafit/set.json"), std::string::npos);
}

TEST(ModelSetFile, EachKindOfBadFileHasItsCode) {
    EXPECT_EQ(parseError("{not json").code, "modelset.bad-json");
    EXPECT_EQ(parseError("[]").code, "modelset.bad-json");
    EXPECT_EQ(parseError(R"({"models": [], "modles": []})").code, "modelset.bad-json");
    EXPECT_EQ(parseError(R"({"models": "a.gguf"})").code, "modelset.bad-json");
    EXPECT_EQ(parseError(R"({"models": [{"model": "a", "args": "-c 512"}]})").code, "modelset.bad-json");
    EXPECT_EQ(parseError(R"({"models": [{"model": "a", "args": ["-c", 512]}]})").code, "modelset.bad-json");
    EXPECT_EQ(parseError(R"({"models": [{"model": "a", "ctx": 512}]})").code, "modelset.bad-json");
    EXPECT_EQ(parseError(R"({"name": "x"})").code, "modelset.missing-field");
    EXPECT_EQ(parseError(R"({"models": [{"name": "x"}]})").code, "modelset.missing-field");
    EXPECT_EQ(parseError(R"({"models": []})").code, "modelset.bad-value");
    EXPECT_EQ(parseError(R"({"format": "llamafit-machine", "models": [{"model": "a"}]})").code,
              "modelset.bad-value");
    EXPECT_EQ(parseError(R"({"version": 2, "models": [{"model": "a"}]})").code, "modelset.bad-value");
    EXPECT_EQ(parseError(R"({"models": [{"model": "a", "args": ["-m", "b.gguf"]}]})").code,
              "modelset.bad-value");
    EXPECT_EQ(parseError(R"({"models": [{"model": "a", "args": {"no-such-flag": 1}}]})").code,
              "modelset.bad-value");
    EXPECT_EQ(parseError(R"({"models": [{"model": "a", "args": {"--no-warmup": false}}]})").code,
              "modelset.bad-value");
    EXPECT_EQ(parseError(R"({"models": [{"model": "/x/a.gguf"}, {"model": "/y/a.gguf"}]})").code,
              "modelset.duplicate-name");
}

TEST(ModelSetFile, MessagesNameTheModel) {
    const Error error = parseError(R"({"models": [{"model": "a"}, {"model": "b", "args": {"bogus": 1}}]})");
    EXPECT_NE(error.message.find("models[1] ('b')"), std::string::npos) << error.message;
    EXPECT_NE(error.message.find("'bogus'"), std::string::npos) << error.message;
}

} // namespace
} // namespace llamafit
