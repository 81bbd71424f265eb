// The built-in machine profiles (resources/machines/*.json, compiled in), parsed once on first
// use; the start machine. A profile that fails to parse is left out and reported by
// builtinMachineErrors(); the unit tests require that list to be empty.
#include "core/machine/machinefrominventory.h"
#include "core/machine/machineprofile.h"

#include "resources/builtinmachines.h"

#include <filesystem>

namespace llamafit {

namespace {

struct ParsedMachines {
    std::vector<Machine> machines;
    std::vector<Error> errors;
};

ParsedMachines parseMachines() {
    ParsedMachines parsed;
    for (const auto& embedded : resources::builtinMachineTexts()) {
        Result<Machine> machine = parseMachineProfile(embedded.text);
        if (!machine) {
            parsed.errors.push_back(makeError(machine.error().code, std::string(embedded.fileName) + ": " +
                                                                        machine.error().message));
            continue;
        }
        parsed.machines.push_back(std::move(*machine));
    }
    return parsed;
}

// Immutable after the first call (a function-local static is initialised thread-safely).
const ParsedMachines& parsedMachines() {
    static const ParsedMachines parsed = parseMachines();
    return parsed;
}

} // namespace

const std::vector<Machine>& builtinMachines() {
    return parsedMachines().machines;
}

const std::vector<Error>& builtinMachineErrors() {
    return parsedMachines().errors;
}

std::string_view defaultMachineId() {
    return "gmktec-evo-x2-64gb-32-32";
}

Result<Machine> findBuiltinMachine(std::string_view id) {
    std::string known;
    for (const Machine& machine : builtinMachines()) {
        if (machine.id == id) {
            return machine;
        }
        known += (known.empty() ? "" : ", ") + machine.id;
    }
    return makeError("machine.unknown-profile",
                     "no built-in machine profile \"" + std::string(id) + "\" (known: " + known + ")");
}

Result<Machine> resolveMachine(const std::string& idOrPath) {
    Result<Machine> builtin = findBuiltinMachine(idOrPath);
    if (builtin) {
        return builtin;
    }
    std::error_code error;
    if (std::filesystem::exists(idOrPath, error)) {
        return loadMachineProfile(idOrPath);
    }
    return makeError("machine.unknown-profile", "'" + idOrPath +
                                                    "' is neither a built-in machine profile nor a file (" +
                                                    builtin.error().message + ")");
}

Machine chooseStartMachine(const std::optional<MachineInventory>& detected) {
    if (detected && inventoryHasGpu(*detected)) {
        return machineFromInventory(*detected);
    }
    Result<Machine> fallback = findBuiltinMachine(defaultMachineId());
    if (fallback) {
        return *fallback;
    }
    // Only a broken build lacks the built-in profile; the detected machine is still an answer.
    return machineFromInventory(detected.value_or(MachineInventory{}));
}

} // namespace llamafit
