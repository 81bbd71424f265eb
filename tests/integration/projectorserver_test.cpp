// Vision projectors live (issue 11 item 3): the real llama-server 0.7.0 loads the tiny text model
// with each generated projector of tests/data/shapes/mmproj (sparse, realistic widths), warms it
// up, and its printed projector buffers meet the estimate (core/sizing/projectorbuffers.h):
// weights to the printed 0.01 MiB, the warm-up image exactly, compute within 5 %. The recorded
// runs (tests/unit/recorded/recordedprojectorruns_test.cpp) hold more cases without a server.

#include "core/common/units.h"
#include "core/flags/serverargs.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/projectorbuffers.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/liveserverskip.h"
#include "tests/support/llamaserverrun.h"
#include "tests/support/modelfiles.h"
#include "tests/support/projectorlog.h"

#include <gtest/gtest.h>

namespace llamafit::test {
namespace {

struct LiveProjectorCase {
    const char* projector; // stem in tests/data/shapes/mmproj
    std::vector<std::string> flags;
};

class ProjectorServerTest : public ::testing::TestWithParam<LiveProjectorCase> {};

TEST_P(ProjectorServerTest, PrintedBuffersMeetTheEstimate) {
    LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER();
    const auto server = findLlamaServer();
    ASSERT_TRUE(server.ok()) << server.error().message;
    std::string error;
    const std::string& directory = scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    const std::string textPath = directory + "/projector-tiny.gguf";
    ASSERT_TRUE(writeTinyModel(textPath).ok());
    const std::string projectorPath = directory + "/" + GetParam().projector + ".gguf";
    const auto spec = loadModelSpecFile(shapesDirectory() + "/mmproj/" + GetParam().projector + ".json");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    ASSERT_TRUE(writeSpecAsGguf(*spec, projectorPath).ok());

    std::vector<std::string> flags = {"-c", "512", "--mmproj", projectorPath};
    flags.insert(flags.end(), GetParam().flags.begin(), GetParam().flags.end());
    ServerRunOptions options;
    options.executable = *server;
    options.args = {"-m", textPath, "-lv", "4", "-fit", "off", "-t", "2"}; // with the warm-up
    options.args.insert(options.args.end(), flags.begin(), flags.end());
    options.environment = {{"LLAMAFIT_NO_POPULATE", "1"}};
    options.timeout = std::chrono::seconds(120);
    options.stopWhen = [](std::string_view log) {
        return log.find("listening on") != std::string_view::npos ||
               log.find("exiting due to model loading error") != std::string_view::npos;
    };
    const auto run = runLlamaServer(options);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const ProjectorLogLines logged = projectorLogLines(run->log);
    ASSERT_TRUE(logged.weightMiB && logged.warmupSide && logged.computeMiB) << run->log;

    const auto parsed = parseServerArgs(flags);
    ASSERT_TRUE(parsed.ok()) << parsed.error().message;
    const auto projector = projectorShape(projectorPath);
    ASSERT_TRUE(projector.ok()) << projector.error().message;
    const ProjectorBuffers buffers = projectorBuffers(*projector, parsed->settings, {});
    EXPECT_NEAR(toMiB(buffers.weightBytes), *logged.weightMiB, 0.005);
    EXPECT_EQ(static_cast<int>(buffers.warmupImageSide), *logged.warmupSide);
    EXPECT_NEAR(toMiB(buffers.computeBytes), *logged.computeMiB, 0.05 * *logged.computeMiB);
}

INSTANTIATE_TEST_SUITE_P(Live, ProjectorServerTest,
                         ::testing::Values(LiveProjectorCase{"qwen2vl-mmproj", {"--image-max-tokens", "500"}},
                                           LiveProjectorCase{"qwen2vl-mmproj",
                                                             {"-fa", "off", "--image-max-tokens", "256"}},
                                           LiveProjectorCase{"gemma3-mmproj", {"--no-mmproj-offload"}}),
                         [](const ::testing::TestParamInfo<LiveProjectorCase>& info) {
                             return std::string(info.param.projector[0] == 'q' ? "qwen2vl" : "gemma3") + "_" +
                                    std::to_string(info.index);
                         });

} // namespace
} // namespace llamafit::test
