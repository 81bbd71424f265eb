#pragma once
// The llamafit-cli subcommands. Each takes the words after its name and returns the
// process exit code (kExitOk, or kExitError after printing what was wrong). main.cpp maps
// the subcommand name to one of these; each lives in its own <name>command.cpp.

#include "app/cli/commandline.h"

#include <string>
#include <vector>

namespace llamafit {

int runInspectCommand(const std::vector<std::string>& args, const CommandIo& io);
int runEstimateCommand(const std::vector<std::string>& args, const CommandIo& io);
int runFitCommand(const std::vector<std::string>& args, const CommandIo& io);
int runSweepCommand(const std::vector<std::string>& args, const CommandIo& io);
int runCardsCommand(const std::vector<std::string>& args, const CommandIo& io);
int runDevicesCommand(const std::vector<std::string>& args, const CommandIo& io);
int runMachinesCommand(const std::vector<std::string>& args, const CommandIo& io);
int runPlanCommand(const std::vector<std::string>& args, const CommandIo& io);
int runExportCommand(const std::vector<std::string>& args, const CommandIo& io);
// plan --set / export --set (modelsetcommand.cpp): runPlanCommand and runExportCommand hand
// their words over when hasSetOption() finds --set among them.
bool hasSetOption(const std::vector<std::string>& args);
int runPlanSetCommand(const std::vector<std::string>& args, const CommandIo& io);
int runExportSetCommand(const std::vector<std::string>& args, const CommandIo& io);
int runLaunchCommand(const std::vector<std::string>& args, const CommandIo& io);
int runBenchCommand(const std::vector<std::string>& args, const CommandIo& io);
int runRpcServerCommand(const std::vector<std::string>& args, const CommandIo& io);
int runHfCommand(const std::vector<std::string>& args, const CommandIo& io);
int runEnginesCommand(const std::vector<std::string>& args, const CommandIo& io);

} // namespace llamafit
