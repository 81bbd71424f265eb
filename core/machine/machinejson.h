#pragma once
// The one JSON writer of a Machine, in its two forms:
//   ProfileFile  the profile file (machineProfileJson in machineprofile.h, read back by
//                parseMachineProfile): "format"/"version", sizes in MiB (exact fractions when
//                not whole), the measured or assumed figures that make parse(write(m)) == m.
//   Report       what `llamafit-cli machines --json` prints per machine (a STABLE interface;
//                app/cli/planoutput.h): sizes in bytes, plus what follows from the profile
//                (apu, each pool's usable bytes).
// Both share the GPU entries and the pool / BIOS split fields, named *_mib or *_bytes by form.
// Qt-free; keys in the order written (nlohmann::ordered_json).

#include "core/machine/memorypools.h"

#include <nlohmann/json.hpp>

namespace llamafit {

enum class MachineJsonForm { ProfileFile, Report };

nlohmann::ordered_json machineJson(const Machine& machine, MachineJsonForm form);

} // namespace llamafit
