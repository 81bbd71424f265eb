// The seeded random holdout (issue 30 item 7) against what the real llama-server printed, without
// a server: every case of tests/support/holdoutcases.h -- real model widths (tests/data/holdout),
// random block counts and settings, on the CPU build, lavapipe's Vulkan0 and two ggml-rpc-server --
// has its recording (tests/data/recorded/holdout-b11669/<case>.txt, scripts/record-server-runs.sh
// --backend holdout-cpu|holdout-vulkan|holdout-rpc). No sizing rule was written from these cases.
//
// What the product claims today, held per case: the estimate refuses exactly what the server
// refuses, and model, KV, RS and output buffers, context values and cache shapes equal the log
// (compareWithServer's print precision) -- apart from the named known exceptions below, each with
// its cause, which fail once they are fixed so that the list shrinks. Compute buffers are the
// estimate's approximation: HoldoutComputeFigures prints, per backend and per architecture, how many
// device and host compute buffers are within 2 % and within 5 %, and the worst of each; it holds a
// floor at today's counts (a ratchet: worse fails, better asks for the floor to be raised).
// A case without a recording, a recording without a case, and a recording whose argv is not the
// case's settings all fail by name.

#include "core/flags/serverargs.h"
#include "core/server/allocationlog.h"
#include "core/sizing/estimator.h"
#include "tests/support/holdoutcases.h"
#include "tests/support/matrixstatistics.h"
#include "tests/support/rpccases.h"
#include "tests/support/servercomparison.h"
#include "tests/support/shapegeometry.h"
#include "tests/unit/recorded/recordedmatrix.h"
#include "tests/unit/recorded/recordedrun.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

namespace llamafit::test {
namespace {

constexpr const char* kRecordedDir = LLAMAFIT_RECORDED_HOLDOUT_RUNS_DIR;
constexpr const char* kRerecord =
    "; run scripts/record-server-runs.sh --backend holdout-cpu|holdout-vulkan|holdout-rpc to bring "
    "tests/data/recorded/holdout-b11669 in step with tests/support/holdoutcases.cpp";

// Cases whose model, KV, RS or output buffers, context values or refusal differ from the server
// today, with the cause found. Not fixed here (core/sizing is not changed from holdout cases);
// a case that passes while listed fails, so a fix shows.
const std::map<std::string, std::string>& knownExceptions() {
    // None now. h150_cohere2_vulkan and h211_falcon_h1_vulkan were (-fa auto on lavapipe with a V
    // type ggml-vulkan has no flash attention kernel for: llama.cpp's resolve_fused_ops turns it off,
    // the estimate kept it on); the engine now replays that probe (computeengine.h
    // engineKeepsFlashAttention). An entry names a case and the reason it cannot match yet.
    static const std::map<std::string, std::string> exceptions;
    return exceptions;
}

// Today's compute figures per backend (HoldoutComputeFigures): buffers within 2 % and within 5 %,
// device and host. A change that lowers one fails; one that raises it asks for the floor to be raised.
struct ComputeFloor {
    HoldoutBackend backend;
    std::uint32_t deviceTight, deviceRight, hostTight, hostRight;
};
const std::vector<ComputeFloor>& computeFloors() {
    static const std::vector<ComputeFloor> floors{
        // Before the sizing engine (b11669, the closed forms): CPU host 119 and 130 of 147; lavapipe
        // device 39 and 55 of 97, host 57 and 60 of 97; RPC servers 32 and 45 of 88, host 34 and 38
        // of 49. With the engine (2026-12-06, after ten lavapipe cases were drawn again under a
        // budget that no longer reads the compute estimate): CPU host 140 and 143 of 147; lavapipe
        // device 83 and 87 of 98, host 84 and 86 of 98; RPC servers 77 and 80 of 88, host 46 and 46
        // of 49. With gpt-oss's builder: lavapipe device 88 and 91, host 89 and 91; RPC servers 83
        // and 84, host 47 and 47 (gpt-oss now every buffer within 2 %). With lfm2's builder (lfm2
        // now every buffer within 2 %): CPU host 143 and 143; lavapipe device 93 and 94, host 94 and
        // 95; RPC servers 87 and 88, host 49 and 49. With the other work of that day beside it (a V
        // cache left in rows when -fa auto's probe turns flash attention off, a quantized V's output
        // rotation after build_attn_mha's expand, cohere2): every buffer within 2 %. Round 2
        // (2026-12-07: phi3, seed_oss, smollm3, granite, granitemoe, glm4, olmo2, qwen2moe, drawn
        // after their builders were written and recorded once): every buffer within 2 % again,
        // CPU host 192, lavapipe device and host 129, RPC servers 110, host 65. Round 3 (the same
        // day: mistral3, qwen35, qwen35moe, qwen3next, nemotron_h, nemotron_h_moe, jamba, lfm2moe,
        // mamba, rwkv6, deepseek2-mla): every buffer within 2 % again, CPU host 246, lavapipe
        // device and host 159, RPC servers 142, host 87; one lavapipe case is ggml's abort, foretold.
        // Rounds 4 and 5 (command-r, then gemma, each drawn after its builder): every buffer within
        // 2 %, CPU host 253, lavapipe device and host 165, RPC servers 147, host 90. Round 6
        // (2026-12-07: qwen3vl and qwen3vlmoe, drawn after their builders): every buffer within
        // 2 %, CPU host 261, lavapipe device and host 171, RPC servers 155, host 94. Round 7 (the
        // same day: ernie4_5 and ernie4_5-moe): every buffer within 2 %, CPU host 269, lavapipe
        // device and host 177, RPC servers 161, host 98. Round 8 (minimax-m2): every buffer within
        // 2 %, CPU host 273, lavapipe device and host 180, RPC servers 163, host 100. Round 9
        // (olmoe): every buffer within 2 %, CPU host 277, lavapipe device and host 183, RPC servers
        // 167, host 102. Round 10 (hunyuan-moe): every buffer within 2 %, CPU host 281, lavapipe
        // device and host 186, RPC servers 170, host 104. Round 11 (dots1): every buffer within
        // 2 %, CPU host 285, lavapipe device and host 189, RPC servers 172, host 106. Round 12
        // (internlm2): every buffer within 2 %, CPU host 289, lavapipe device and host 192, RPC
        // servers 175, host 108.
        {HoldoutBackend::Cpu, 0, 0, 289, 289},
        {HoldoutBackend::Vulkan, 192, 192, 192, 192},
        {HoldoutBackend::Rpc, 175, 175, 108, 108},
    };
    return floors;
}

struct RecordedHoldoutCase {
    std::string name;
    std::optional<HoldoutCase> holdout;
    std::optional<std::string> recordingPath;
};

std::vector<RecordedHoldoutCase> recordedHoldoutCases() {
    std::map<std::string, RecordedHoldoutCase> byName;
    for (const HoldoutCase& holdout : holdoutCases()) {
        byName[holdout.name()] = {holdout.name(), holdout, std::nullopt};
    }
    for (const std::string& path : recordedRunFiles(kRecordedDir)) {
        const std::string name = std::filesystem::path(path).stem().string();
        byName[name].name = name;
        byName[name].recordingPath = path;
    }
    std::vector<RecordedHoldoutCase> cases;
    for (auto& [name, recordedCase] : byName) {
        cases.push_back(std::move(recordedCase));
    }
    return cases;
}

// One recorded case judged: the estimate against the parsed log.
struct HoldoutJudgement {
    std::string serverVersion;
    Result<MemoryEstimate> estimate = Error{};
    AllocationLog log;
    RunVerdict verdict; // judgeServerRun: refusals, compute within 5 %, for MatrixStatistics
    // What the product claims exactly, with the reason it does not hold (empty: it holds).
    std::vector<std::string> exactFailures;
};

Result<HoldoutJudgement> judgeHoldout(const RecordedHoldoutCase& recordedCase) {
    if (!recordedCase.holdout) {
        return makeError("test.out-of-step", *recordedCase.recordingPath +
                                                 " records a case that holdoutCases() does not have" +
                                                 kRerecord);
    }
    if (!recordedCase.recordingPath) {
        return makeError("test.out-of-step", "the holdout case " + recordedCase.name + " (" +
                                                 recordedCase.holdout->geometry + ") has no recording in " +
                                                 kRecordedDir + kRerecord);
    }
    const HoldoutCase& holdout = *recordedCase.holdout;
    const IntegrationCase& matrixCase = holdout.matrixCase;
    const auto run = readRecordedRun(*recordedCase.recordingPath);
    if (!run) {
        return run.error();
    }
    if (run->notRecorded) {
        return makeError("test.out-of-step", recordedCase.name + " was not recorded (" + *run->notRecorded +
                                                 "): the generator's budget should have redrawn it" +
                                                 kRerecord);
    }
    const auto parsed = parseServerArgs(settingsArgs(run->argv));
    if (!parsed) {
        return parsed.error();
    }
    if (std::filesystem::path(parsed->model).filename().string() != matrixCase.shape.name + ".gguf" ||
        !(parsed->settings == matrixCase.settings)) {
        std::string argv;
        for (const std::string& word : run->argv) {
            argv += " " + word;
        }
        return makeError("test.out-of-step", "the recording of " + recordedCase.name + " ran `llama-server" +
                                                 argv + "`, which is not the case as it is drawn now" +
                                                 kRerecord);
    }
    const auto model = recordedShapeModel(matrixCase.shape);
    if (!model) {
        return model.error();
    }
    auto log = parseAllocationLog(run->log);
    if (!log) {
        return log.error();
    }
    std::vector<GpuDevice> devices = matrixCase.gpus;
    if (holdout.backend == HoldoutBackend::Rpc) {
        auto listed = devicesFromLog(matrixCase.settings, run->log);
        if (!listed) {
            return listed.error();
        }
        devices = std::move(*listed);
    }

    HoldoutJudgement judgement;
    judgement.serverVersion = run->serverVersion;
    judgement.estimate = estimateMemory(*model, matrixCase.settings, devices);
    judgement.log = std::move(*log);
    judgement.verdict = judgeServerRun(judgement.estimate, judgement.log);
    if (!judgement.estimate) {
        if (!judgement.log.loadFailed) {
            judgement.exactFailures.push_back(judgement.verdict.failure);
        }
        return judgement;
    }
    if (!judgement.log.reserveComplete || !judgement.estimate->serverAborts.empty()) {
        // The server stopped before its buffers, or the estimate says it aborts: the verdict
        // holds unless the two disagree (an abort foretold must be the server's, word for word).
        if (!judgement.verdict.passed) {
            judgement.exactFailures.push_back(judgement.verdict.failure);
        }
        return judgement;
    }
    // compareWithServer reports each buffer outside its tolerance once, and the context values
    // and cache shapes besides: the mismatches not accounted for by a compute buffer are all
    // part of the exact claim.
    const ServerComparison comparison = compareWithServer(*judgement.estimate, judgement.log);
    std::size_t computeOff = 0;
    for (const ComparedBuffer& buffer : comparison.buffers) {
        if (buffer.withinTolerance) {
            continue;
        }
        if (buffer.component == Component::Compute) {
            ++computeOff;
        } else {
            char line[256];
            std::snprintf(line, sizeof line, "%s %s: predicted %.2f MiB, logged %.2f MiB",
                          std::string(componentName(buffer.component)).c_str(), buffer.bufferType.c_str(),
                          buffer.predictedMiB, buffer.loggedMiB);
            judgement.exactFailures.push_back(line);
        }
    }
    if (comparison.mismatches.size() > computeOff + judgement.exactFailures.size()) {
        for (const std::string& mismatch : comparison.mismatches) {
            judgement.exactFailures.push_back(mismatch);
        }
    }
    return judgement;
}

// judgeHoldout, once per case and process: both tests below judge every case, and the binary runs
// as one process (tests/unit/recorded/CMakeLists.txt), so the second reads the first's judgements.
const Result<HoldoutJudgement>& judgedHoldout(const RecordedHoldoutCase& recordedCase) {
    static std::map<std::string, Result<HoldoutJudgement>> judged;
    auto found = judged.find(recordedCase.name);
    if (found == judged.end()) {
        found = judged.emplace(recordedCase.name, judgeHoldout(recordedCase)).first;
    }
    return found->second;
}

// One test over every case, each failure named: ctest runs each gtest case in a process of its own,
// and every process draws the whole holdout first (about 0.4 s), so 300 cases as 300 tests cost
// minutes of CI for what one process does in seconds.
TEST(RecordedHoldoutTest, RefusalsAndExactBuffersMatchTheServer) {
    for (const RecordedHoldoutCase& recordedCase : recordedHoldoutCases()) {
        SCOPED_TRACE(recordedCase.name);
        const auto& judged = judgedHoldout(recordedCase);
        if (!judged.ok()) {
            ADD_FAILURE() << judged.error().code << ": " << judged.error().message;
            continue;
        }
        std::string failures;
        for (const std::string& failure : judged->exactFailures) {
            failures += "\n  " + failure;
        }
        const auto known = knownExceptions().find(recordedCase.name);
        if (known == knownExceptions().end()) {
            EXPECT_TRUE(judged->exactFailures.empty())
                << recordedCase.name << " (" << recordedCase.holdout->geometry << ", "
                << judged->serverVersion << "):" << failures;
        } else {
            EXPECT_FALSE(judged->exactFailures.empty())
                << recordedCase.name << " is listed as a known exception (" << known->second
                << ") but now matches the server: remove it from knownExceptions()";
        }
    }
}

std::string tallyLine(const BufferTally& tally) {
    char line[512];
    if (tally.total == 0) {
        std::snprintf(line, sizeof line, "%s: none", tally.label.c_str());
        return line;
    }
    std::snprintf(line, sizeof line, "%s: within 2 %% %u/%u, within 5 %% %u/%u", tally.label.c_str(),
                  tally.tight, tally.total, tally.right, tally.total);
    std::string text = line;
    if (tally.worst) {
        std::snprintf(line, sizeof line, "; worst %s %s %.2f/%.2f MiB (x%.3f)", tally.worstCase.c_str(),
                      tally.worst->bufferType.c_str(), tally.worst->predictedMiB, tally.worst->loggedMiB,
                      tally.worst->ratio());
        text += line;
    }
    return text;
}

// The "before" figure of issue 30 item 7: compute buffers per backend and per architecture, and
// a floor at today's counts.
TEST(HoldoutComputeFigures, ReportsComputeAndHoldsTheFloor) {
    std::map<HoldoutBackend, MatrixStatistics> byBackend;
    std::map<std::pair<HoldoutBackend, std::string>, MatrixStatistics> byArchitecture;
    std::map<HoldoutBackend, std::uint32_t> refused;
    std::ostringstream outside; // every compute buffer outside 2 %, for whoever looks for the mechanism
    for (const RecordedHoldoutCase& recordedCase : recordedHoldoutCases()) {
        const auto& judged = judgedHoldout(recordedCase);
        if (!judged) {
            continue; // the case's own test names it
        }
        for (const ComparedBuffer& buffer : judged->verdict.buffers) {
            if (buffer.component == Component::Compute && !buffer.withinRelative(0.02)) {
                char line[256];
                std::snprintf(line, sizeof line, "[ holdout  ] outside 2 %%: %s %s %.2f/%.2f MiB (x%.3f)\n",
                              recordedCase.name.c_str(), buffer.bufferType.c_str(), buffer.predictedMiB,
                              buffer.loggedMiB, buffer.ratio());
                outside << line;
            }
        }
        const HoldoutCase& holdout = *recordedCase.holdout;
        byBackend[holdout.backend].add(recordedCase.name, judged->verdict);
        byArchitecture[{holdout.backend, holdout.matrixCase.shape.architecture}].add(recordedCase.name,
                                                                                     judged->verdict);
        refused[holdout.backend] += judged->log.loadFailed ? 1 : 0;
    }
    std::ostringstream report;
    for (const auto& [backend, statistics] : byBackend) {
        const std::string name = holdoutBackendName(backend);
        report << "[ holdout  ] " << name << ": " << statistics.cases() << " cases (" << refused[backend]
               << " refused by the server)\n"
               << "[ holdout  ] " << name << " " << tallyLine(statistics.deviceCompute()) << "\n"
               << "[ holdout  ] " << name << " " << tallyLine(statistics.hostCompute()) << "\n";
        for (const auto& [key, perArchitecture] : byArchitecture) {
            if (key.first != backend) {
                continue;
            }
            report << "[ holdout  ]   " << name << " " << key.second << " (" << perArchitecture.cases()
                   << "): " << tallyLine(perArchitecture.deviceCompute()) << "; "
                   << tallyLine(perArchitecture.hostCompute()) << "\n";
        }
    }
    std::cout << report.str() << outside.str() << std::flush;

    for (const ComputeFloor& floor : computeFloors()) {
        const MatrixStatistics& statistics = byBackend[floor.backend];
        const std::string name = holdoutBackendName(floor.backend);
        const BufferTally& device = statistics.deviceCompute();
        const BufferTally& host = statistics.hostCompute();
        const std::pair<std::uint32_t, std::uint32_t> figures[] = {{device.tight, floor.deviceTight},
                                                                   {device.right, floor.deviceRight},
                                                                   {host.tight, floor.hostTight},
                                                                   {host.right, floor.hostRight}};
        const char* labels[] = {"device within 2 %", "device within 5 %", "host within 2 %",
                                "host within 5 %"};
        for (std::size_t i = 0; i < 4; ++i) {
            EXPECT_GE(figures[i].first, figures[i].second)
                << name << " " << labels[i] << " fell below its floor in computeFloors()";
            if (figures[i].first > figures[i].second) {
                std::cout << "[ holdout  ] " << name << " " << labels[i] << " is " << figures[i].first
                          << ", above its floor " << figures[i].second << ": raise it in computeFloors()\n";
            }
        }
    }
}

// The tables of tests/data/holdout describe their shapes, and the generator gives the issue's
// spread: at least 12 architectures and 300 cases over the three backends, each case of a
// distinct name, and every table drawn on every backend (a table whose round no HoldoutRound
// draws would otherwise sit unused).
TEST(HoldoutGeneratorTest, DrawsEveryTableOnThreeBackends) {
    const auto& tables = geometryTables();
    ASSERT_TRUE(tables.ok()) << tables.error().code << ": " << tables.error().message;
    EXPECT_GE(tables->size(), 12u);
    std::set<std::string> names;
    std::map<HoldoutBackend, std::set<std::string>> drawnTables;
    for (const HoldoutCase& holdout : holdoutCases()) {
        names.insert(holdout.name());
        drawnTables[holdout.backend].insert(holdout.geometry.substr(0, holdout.geometry.find('/')));
        EXPECT_FALSE(holdout.geometry.empty()) << holdout.name() << " drew no geometry";
    }
    EXPECT_EQ(names.size(), holdoutCases().size());
    EXPECT_GE(holdoutCases().size(), 300u);
    for (const HoldoutBackend backend : {HoldoutBackend::Cpu, HoldoutBackend::Vulkan, HoldoutBackend::Rpc}) {
        for (const GeometryTable& table : *tables) {
            EXPECT_EQ(drawnTables[backend].count(table.architecture), 1u)
                << table.architecture << " (round " << table.round << ") is never drawn on "
                << holdoutBackendName(backend);
        }
    }
}

// The recordings are of one build, the pinned one.
TEST(HoldoutFolderTest, HoldsRunsOfThePinnedBuild) {
    std::set<std::string> versions;
    for (const std::string& path : recordedRunFiles(kRecordedDir)) {
        const auto run = readRecordedRun(path);
        ASSERT_TRUE(run.ok()) << run.error().message;
        versions.insert(run->serverVersion);
    }
    ASSERT_EQ(versions.size(), 1u) << "recordings of " << versions.size() << " builds in " << kRecordedDir
                                   << kRerecord;
    EXPECT_NE(versions.begin()->find("(build 11669"), std::string::npos) << *versions.begin();
}

} // namespace
} // namespace llamafit::test
