#pragma once
// One recorded llama-server run of the integration matrix (tests/data/recorded/<build>/<case>.txt,
// written by scripts/record-server-runs.sh; the format is in tests/data/recorded/README.md):
// the server's version line, the argv it was started with, and the log lines the allocation-log
// parser reads -- or why the case was not recorded. Read by tests/unit/recorded only.
//
// Error codes: test.read-failed (no such file), test.bad-recording (a header line is missing).

#include "core/common/result.h"

#include <optional>
#include <string>
#include <vector>

namespace llamafit::test {

struct RecordedRun {
    std::string caseName;                   // the file stem: "gemma3_c4096_np1_swafull"
    std::string serverVersion;              // "version: 0.7.0 (build 11669, commit Debian)"
    std::optional<std::string> notRecorded; // why the recording machine skipped the case
    std::vector<std::string> argv;          // after "llama-server": $SCRATCH/<shape>.gguf, $PORT as written
    std::string log;                        // the kept lines, one per line
};

Result<RecordedRun> readRecordedRun(const std::string& path);

// Every <case>.txt of a recording folder, sorted by file name.
std::vector<std::string> recordedRunFiles(const std::string& directory);

} // namespace llamafit::test
