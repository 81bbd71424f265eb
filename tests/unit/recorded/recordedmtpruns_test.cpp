// What a llama-server command loads besides the model (issue 11) against what the real
// llama-server 0.7.0 printed, without a server. Compiled once per matrix
// (LLAMAFIT_RECORDED_EXTRA_MATRIX): "mtp" reads tests/data/recorded/mtp-b11669 (MTP / NextN,
// item 1), "lora" reads lora-b11669 (LoRA adapters, item 4), "draft" reads draft-b11669 (draft
// models, item 2), all written by scripts/record-mtp-runs.sh, which holds the case tables. Every
// recording is judged against estimateMemory(the shape its -m names, the adapters its --lora flags
// and the draft its -md names, built in memory from tests/data/shapes or the built-in cards; the
// settings its argv holds, read by the flag table): model, LoRA, KV, RS and output of the main
// context, of the MTP draft context and of the draft model's context to the printed 0.01 MiB,
// compute within 5 %, context values and caches equal (servercomparison.h); what llama-server
// refuses is refused. The recording's argv is the case.

#include "core/flags/serverargs.h"
#include "core/model/loraadapter.h"
#include "core/model/modelsource.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/support/integrationcases.h"
#include "tests/support/modelfiles.h"
#include "tests/support/servercomparison.h"
#include "tests/unit/recorded/recordedmatrix.h"
#include "tests/unit/recorded/recordedrun.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <set>

namespace llamafit::test {
namespace {

constexpr const char* kRecordedDir = LLAMAFIT_RECORDED_MTP_RUNS_DIR;
constexpr const char* kRerecord = "; run scripts/record-mtp-runs.sh";

constexpr const char* kMatrix = LLAMAFIT_RECORDED_EXTRA_MATRIX;

// A model the recordings name: a shape of tests/data/shapes or of its mtp/ folder (the NextN
// shape), else a built-in card id (the draft matrix's realistic pairs).
Result<ModelInfo> recordedModelNamed(const std::string& name) {
    for (const std::string folder : {"/", "/mtp/"}) {
        IntegrationShape shape;
        shape.name = name;
        shape.specPath = shapesDirectory() + folder + name + ".json";
        if (std::filesystem::exists(shape.specPath)) {
            return recordedShapeModel(shape);
        }
    }
    Result<LoadedModel> card = loadModel(name);
    if (!card) {
        return card.error();
    }
    return std::move(card->info);
}

// The adapters the settings name, by file stem, from tests/data/shapes/lora, built in memory.
Result<std::vector<LoraAdapterInfo>> recordedAdapters(const ServerSettings& settings) {
    std::vector<LoraAdapterInfo> adapters;
    for (const LoraAdapterSetting& setting : settings.loraAdapters) {
        const std::string stem = std::filesystem::path(setting.path).stem().string();
        const auto spec = loadModelSpecFile(shapesDirectory() + "/lora/" + stem + ".json");
        if (!spec) {
            return spec.error();
        }
        const auto file = ggufFileForSpec(*spec);
        if (!file) {
            return file.error();
        }
        auto adapter = interpretLoraAdapter(*file, setting.path);
        if (!adapter) {
            return adapter.error();
        }
        adapters.push_back(std::move(*adapter));
    }
    return adapters;
}

// The adapters and the draft model the settings name, built in memory.
Result<CompanionModels> recordedCompanions(const ServerSettings& settings) {
    CompanionModels companions;
    auto adapters = recordedAdapters(settings);
    if (!adapters) {
        return adapters.error();
    }
    companions.loraAdapters = std::move(*adapters);
    if (loadsDraftModel(settings)) {
        auto draft = recordedModelNamed(std::filesystem::path(settings.draftModel.path).stem().string());
        if (!draft) {
            return draft.error();
        }
        companions.draftModel = std::move(*draft);
    }
    return companions;
}

std::string caseName(const std::string& path) {
    return std::filesystem::path(path).stem().string();
}

class RecordedMtpRunTest : public ::testing::TestWithParam<std::string> {};

TEST_P(RecordedMtpRunTest, AllocationMatchesEstimate) {
    const auto run = readRecordedRun(GetParam());
    ASSERT_TRUE(run.ok()) << run.error().code << ": " << run.error().message;
    const auto parsed = parseServerArgs(settingsArgs(run->argv));
    ASSERT_TRUE(parsed.ok()) << parsed.error().code << ": " << parsed.error().message;
    EXPECT_TRUE(parsed->unmodelledFlags.empty()) << "the case passes a flag the estimate does not model";
    const std::string shape = std::filesystem::path(parsed->model).stem().string();
    const auto model = recordedModelNamed(shape);
    ASSERT_TRUE(model.ok()) << model.error().code << ": " << model.error().message;
    const auto log = parseAllocationLog(run->log);
    ASSERT_TRUE(log.ok()) << log.error().code << ": " << log.error().message;
    const auto companions = recordedCompanions(parsed->settings);
    ASSERT_TRUE(companions.ok()) << companions.error().code << ": " << companions.error().message;
    const auto estimate = estimateMemory(*model, parsed->settings, {}, *companions);
    if (!estimate.ok() || !log->reserveComplete) {
        const RunVerdict verdict = judgeServerRun(estimate, *log); // a refusal must meet a refusal
        EXPECT_TRUE(verdict.passed) << caseName(GetParam()) << ": " << verdict.failure;
        return;
    }
    const ServerComparison comparison = compareWithServer(*estimate, *log);
    std::cout << "[ figures  ] " << caseName(GetParam()) << ": " << comparison.summary << std::endl;
    for (const std::string& mismatch : comparison.mismatches) {
        ADD_FAILURE() << caseName(GetParam()) << " (" << run->serverVersion << "): " << mismatch;
    }
}

INSTANTIATE_TEST_SUITE_P(Recorded, RecordedMtpRunTest, ::testing::ValuesIn(recordedRunFiles(kRecordedDir)),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                             return caseName(info.param);
                         });

// The issue's bar: at least 20 runs with the MTP draft context (the skipped weights and the
// refusal among the rest), at least 4 with LoRA buffers (and a refusal), or at least 10 with a
// draft model's context; all of one build.
TEST(RecordedMtpRunsFolderTest, HoldsTheIssuesCasesOfOneBuild) {
    const auto files = recordedRunFiles(kRecordedDir);
    std::set<std::string> versions;
    std::size_t withDraftContext = 0;
    std::size_t withLora = 0;
    std::size_t withDraftModel = 0;
    std::size_t skipped = 0;
    std::size_t refused = 0;
    for (const std::string& path : files) {
        const auto run = readRecordedRun(path);
        ASSERT_TRUE(run.ok()) << run.error().message;
        versions.insert(run->serverVersion);
        const auto log = parseAllocationLog(run->log);
        ASSERT_TRUE(log.ok()) << log.error().message;
        withDraftContext += log->mtpContext && log->mtpContext->reserveComplete ? 1 : 0;
        skipped += !log->mtpContext && log->listening ? 1 : 0;
        refused += log->loadFailed ? 1 : 0;
        withLora += !log->loraMiB.empty() && log->reserveComplete ? 1 : 0;
        withDraftModel += log->draftModelContext && log->draftModelContext->reserveComplete ? 1 : 0;
    }
    if (std::string(kMatrix) == "mtp") {
        EXPECT_GE(withDraftContext, 20u) << kRecordedDir << kRerecord;
        EXPECT_GE(skipped, 2u);
        EXPECT_GE(refused, 1u);
    } else if (std::string(kMatrix) == "lora") {
        EXPECT_GE(withLora, 4u) << kRecordedDir << kRerecord;
        EXPECT_GE(refused, 1u);
    } else {
        EXPECT_GE(withDraftModel, 10u) << kRecordedDir << kRerecord;
    }
    ASSERT_EQ(versions.size(), 1u) << "recordings of more than one build in " << kRecordedDir << kRerecord;
    EXPECT_NE(versions.begin()->find("(build 11669"), std::string::npos) << *versions.begin();
}

} // namespace
} // namespace llamafit::test
