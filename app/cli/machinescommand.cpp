// `llamafit-cli machines`: the built-in machine profiles, usable as `plan --machine ID`.

#include "app/cli/commands.h"
#include "app/cli/jsonoutput.h"

#include "app/cli/commandline.h"
#include "app/cli/planoutput.h"
#include "app/cli/texttable.h"
#include "core/machine/machinejson.h"
#include "core/machine/machineprofile.h"

#include <cstdio>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kMachinesUsage = R"(usage: llamafit-cli machines [--json]

Lists the built-in machine profiles: a machine's memory pools (GPU VRAM, or an APU's BIOS
carve-out and system RAM), its memory bandwidth and BIOS split, each with its sources. Use one
with 'plan --machine ID', or write your own profile JSON (docs, core/machine/machineprofile.h).

  --json                 machine-readable output (every field of every profile)
)";

std::string gpuMemory(const Machine& machine) {
    if (machine.gpus.empty()) {
        return "-";
    }
    const MemoryPool& pool = machine.pools.at(machine.gpus.front().poolIndex);
    return pool.capacityKnown ? formatGiB(pool.capacityBytes) : "?";
}

} // namespace

int runMachinesCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--json"}, {"--help"}, {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    const bool json = options->has("--json");
    if (const auto exitCode = endOnHelpOrStrayArgument(*options, "machines", kMachinesUsage, io)) {
        return *exitCode;
    }
    for (const Error& error : builtinMachineErrors()) {
        io.err << "llamafit-cli: built-in machine skipped: " << error.message << " [" << error.code << "]\n";
    }
    Json list = Json::array();
    TextTable table({"id", "name", "GPU GiB", "system GiB", "GB/s"},
                    {TextTable::Align::Left, TextTable::Align::Left, TextTable::Align::Right,
                     TextTable::Align::Right, TextTable::Align::Right});
    for (const Machine& machine : builtinMachines()) {
        list.push_back(machineJson(machine, MachineJsonForm::Report));
        const MemoryPool& host = machine.pools.at(machine.hostPoolIndex);
        char bandwidth[32] = "?";
        if (machine.bandwidthBytesPerSecond) {
            std::snprintf(bandwidth, sizeof bandwidth, "%.1f",
                          static_cast<double>(*machine.bandwidthBytesPerSecond) / 1e9);
        }
        table.addRow(
            {machine.id, machine.name, gpuMemory(machine), formatGiB(host.capacityBytes), bandwidth});
    }
    if (json) {
        Json object;
        object["machines"] = std::move(list);
        printJson(io.out, object);
    } else {
        table.print(io.out, "");
    }
    return kExitOk;
}

} // namespace llamafit
