#pragma once
// The machine `plan` plans for: --machine's (a built-in id or a profile file), or else the one
// the app starts on (machineprofile.h chooseStartMachine: the detected machine when discovery
// finds a GPU, the EVO-X2 profile when it does not), with why it was chosen. Reads the options
// --machine, --bandwidth, --no-vulkan, --no-nvml, --proc-dir and --drm-dir. Used by
// plancommand.cpp and modelsetcommand.cpp.
//
// Error codes: those of resolveMachine (machine.*).

#include "app/cli/commandline.h"
#include "core/common/result.h"
#include "core/machine/memorypools.h"
#include "core/machine/poolusage.h"

#include <string>

namespace llamafit {

struct ChosenMachine {
    Machine machine;
    std::string because; // "--machine ID", or why the detected / EVO-X2 machine was chosen
};

Result<ChosenMachine> chooseMachine(const CliOptions& options);

// --margin-mib N: the safety margin the verdicts keep free (default 1024 MiB, llama.cpp's -fitt).
Result<PlacementOptions> placementOptions(const CliOptions& options);

} // namespace llamafit
