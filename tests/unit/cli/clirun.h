#pragma once
// Runs the built llamafit-cli (LLAMAFIT_CLI_PATH, from CMake) through /bin/sh with its stdout and
// stderr captured apart: how the CLI binary tests drive it. Test support for tests/unit/cli only.

#include <string>
#include <vector>

namespace llamafit::test {

struct CliRun {
    int exitCode = -1; // the shell's status: 128 + N for a signal, 124 when `timeoutSeconds` ran out
    std::string out;
    std::string err;
};

// `environment`: "NAME=value" words put before the program (the shell sets them for it alone).
// `timeoutSeconds` > 0 runs it under coreutils' timeout, so a hang ends the run with 124.
CliRun runCli(const std::vector<std::string>& args, const std::vector<std::string>& environment = {},
              int timeoutSeconds = 0);

} // namespace llamafit::test
