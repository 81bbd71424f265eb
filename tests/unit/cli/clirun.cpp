#include "tests/unit/cli/clirun.h"

#include "tests/support/commandrun.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace llamafit::test {

CliRun runCli(const std::vector<std::string>& args, const std::vector<std::string>& environment,
              int timeoutSeconds) {
    static std::atomic<int> counter{0};
    const std::filesystem::path errPath =
        std::filesystem::temp_directory_path() /
        ("llamafit_cli_stderr_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + ".txt");
    std::string command;
    for (const std::string& assignment : environment) {
        command += assignment.substr(0, assignment.find('=') + 1) +
                   shellQuote(assignment.substr(assignment.find('=') + 1)) + ' ';
    }
    if (timeoutSeconds > 0) {
        command += "timeout " + std::to_string(timeoutSeconds) + ' ';
    }
    command += shellQuote(LLAMAFIT_CLI_PATH);
    for (const std::string& arg : args) {
        command += ' ' + shellQuote(arg);
    }
    command += " 2>" + shellQuote(errPath.string());
    CommandRun ran = runShellCommand(command);
    CliRun run{ran.exitCode, std::move(ran.out), {}};
    std::ifstream errFile(errPath);
    std::stringstream err;
    err << errFile.rdbuf();
    run.err = err.str();
    std::filesystem::remove(errPath);
    return run;
}

} // namespace llamafit::test
