// The files LlamaFit refuses by the loader's rules (core/model/loaderchecks.h) are refused by
// the real llama-server 0.7.0 too, with the message the rule restates: each file of
// tests/support/refusedmodels.h is written, loaded by LlamaFit (named error) and started
// with llama-server (it must stop before serving and say why).

#include "core/model/modelsource.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/ggufwriter.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/refusedmodels.h"

#include <gtest/gtest.h>

namespace llamafit::test {
namespace {

TEST(RefusedModelsTest, LlamaServerRefusesWhatLlamaFitRefuses) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    auto models = loaderRefusedModels();
    ASSERT_TRUE(models.ok()) << models.error().message;
    for (const RefusedModel& model : *models) {
        SCOPED_TRACE(model.name);
        const std::string path = directory + "/refused-" + model.name + ".gguf";
        const std::string written = writeGguf(path, model.file);
        ASSERT_TRUE(written.empty()) << written;

        Result<LoadedModel> loaded = loadModel(path);
        ASSERT_FALSE(loaded.ok());
        EXPECT_EQ(loaded.error().code, model.expectedCode) << loaded.error().message;

        ServerRunOptions options;
        options.executable = *server;
        options.args = {"-m", path, "-c", "512", "--no-warmup", "-t", "1", "-fit", "off"};
        options.timeout = std::chrono::seconds(60);
        Result<ServerRunResult> run = runLlamaServer(options);
        ASSERT_TRUE(run.ok()) << run.error().message;
        EXPECT_EQ(run->log.find("listening on"), std::string::npos) << run->log;
        EXPECT_NE(run->log.find(model.serverSays), std::string::npos) << run->log;
    }
}

} // namespace
} // namespace llamafit::test
