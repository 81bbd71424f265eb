#pragma once
// A recorded integration matrix: the cases of the CPU matrix (integrationcases.h) or the Vulkan
// matrix (vulkancases.h) paired with their recordings (tests/data/recorded/<folder>/<case>.txt,
// scripts/record-server-runs.sh), and the verdict on one pair: the recording parsed with
// parseAllocationLog and judged (servercomparison.h) against estimateMemory(the shape's model
// built in memory from its spec, the case's settings, the case's devices). Used by
// recordedruns_test.cpp (one gtest case per matrix case, and the matrix's figures) and by
// llamafit-matrix-stats (the figures, for scripts/record-server-runs.sh). No server, no file.
//
// Error codes of judgeRecordedCase: test.out-of-step (a case without recording, a recording
// without case, or a recording of other settings), test.bad-recording, test.read-failed, and
// those of the spec, the cut, the interpreter and the log parser.

#include "core/common/result.h"
#include "core/model/modelinfo.h"
#include "tests/support/integrationcases.h"
#include "tests/support/servercomparison.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace llamafit::test {

enum class RecordedMatrix { Cpu, Vulkan };

// "cpu", "vulkan": the tool's --matrix value.
std::optional<RecordedMatrix> recordedMatrixFromName(const std::string& name);
// The folder of the recordings of the pinned build: tests/data/recorded/cpu-b11669 or
// tests/data/recorded/vulkan-lavapipe-b11669.
std::string recordedRunsDirectory(RecordedMatrix matrix);

// A case of the matrix, its recording, or (when they are out of step) only one of them.
struct RecordedCase {
    std::string name;
    std::optional<IntegrationCase> matrixCase;
    std::optional<std::string> recordingPath;
};
void PrintTo(const RecordedCase& recordedCase, std::ostream* out);

// Every case and every recording, by name.
std::vector<RecordedCase> recordedCases(RecordedMatrix matrix);

struct RecordedVerdict {
    std::optional<std::string> notRecorded; // the recording machine skipped the case: no verdict
    std::string serverVersion;
    RunVerdict verdict;
};

Result<RecordedVerdict> judgeRecordedCase(const RecordedCase& recordedCase, RecordedMatrix matrix);

// The shape's model as the server saw it: the GgufFile writeSpecAsGguf would write (cut as the
// shape says), built in memory; interpreted once per shape in this process.
Result<ModelInfo> recordedShapeModel(const IntegrationShape& shape);

// A recorded argv without what the recorders add (--host/--port): the settings the server got.
// Shared by the CPU/Vulkan, RPC and MTP/LoRA recordings.
std::vector<std::string> settingsArgs(const std::vector<std::string>& argv);

} // namespace llamafit::test
