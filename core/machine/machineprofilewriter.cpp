// machineProfileJson (the explicit form of machineprofile.h, written by machinejson.h) and the
// profile files.
#include "core/common/atomicfile.h"
#include "core/common/utf8path.h"
#include "core/machine/machinejson.h"
#include "core/machine/machineprofile.h"

#include <fstream>
#include <sstream>

namespace llamafit {

std::string machineProfileJson(const Machine& machine) {
    return machineJson(machine, MachineJsonForm::ProfileFile)
               .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
           "\n";
}

Result<Machine> loadMachineProfile(const std::string& path) {
    std::ifstream file(pathFromUtf8(path), std::ios::binary);
    if (!file) {
        return makeError("machine.unreadable", "cannot open machine profile '" + path + "'");
    }
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad()) {
        return makeError("machine.unreadable", "cannot read machine profile '" + path + "'");
    }
    Result<Machine> machine = parseMachineProfile(text.str());
    if (!machine) {
        return makeError(machine.error().code, path + ": " + machine.error().message);
    }
    return machine;
}

// Atomic: a crash while saving leaves the previous profile, never half of each.
Result<bool> saveMachineProfile(const Machine& machine, const std::string& path) {
    Result<bool> written = writeFileAtomically(path, machineProfileJson(machine));
    if (!written) {
        return makeError("machine.unwritable",
                         "cannot write machine profile '" + path + "': " + written.error().message);
    }
    return true;
}

} // namespace llamafit
