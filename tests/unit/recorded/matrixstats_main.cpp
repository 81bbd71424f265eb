// llamafit-matrix-stats --matrix cpu|vulkan [--check]
//
// Prints issue 10's figures for a recorded integration matrix (matrixstatistics.h): cases
// passed, weight buffers right, KV/RS/output exact, device and host compute within 2 % and 5 %,
// the worst case of each, and the cases that do not pass. Exit 0; with --check, exit 1 when
// the issue's tolerances are not met. Exit 2 on bad arguments. scripts/record-server-runs.sh
// runs it after recording. Test support only.

#include "tests/support/matrixstatistics.h"
#include "tests/unit/recorded/recordedmatrix.h"

#include <iostream>
#include <string>

int main(int argc, char** argv) {
    using namespace llamafit::test;
    std::optional<RecordedMatrix> matrix;
    bool check = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--matrix" && i + 1 < argc) {
            matrix = recordedMatrixFromName(argv[++i]);
            if (!matrix) {
                std::cerr << "llamafit-matrix-stats: unknown matrix '" << argv[i] << "' (cpu or vulkan)\n";
                return 2;
            }
        } else if (arg == "--check") {
            check = true;
        } else {
            std::cerr << "usage: llamafit-matrix-stats --matrix cpu|vulkan [--check]\n";
            return 2;
        }
    }
    if (!matrix) {
        std::cerr << "usage: llamafit-matrix-stats --matrix cpu|vulkan [--check]\n";
        return 2;
    }
    MatrixStatistics statistics;
    std::uint32_t notRecorded = 0;
    for (const RecordedCase& recordedCase : recordedCases(*matrix)) {
        const auto judged = judgeRecordedCase(recordedCase, *matrix);
        if (!judged) {
            RunVerdict failed;
            failed.failure = judged.error().code + ": " + judged.error().message;
            statistics.add(recordedCase.name, failed);
        } else if (judged->notRecorded) {
            ++notRecorded;
        } else {
            statistics.add(recordedCase.name, judged->verdict);
        }
    }
    std::cout << "recordings: " << recordedRunsDirectory(*matrix) << " (" << notRecorded << " not recorded)\n"
              << statistics.report();
    return check && !statistics.meetsIssueTolerances() ? 1 : 0;
}
