// `llamafit-cli engines`: the llama-server builds already on this machine -- where each is, its
// build, and the devices it would use.

#include "app/cli/commands.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/texttable.h"
#include "core/system/enginediscovery.h"

#include <QCoreApplication>

#include <memory>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kUsage = R"(usage: llamafit-cli engines [--json]

Lists the llama-server builds on this machine: every folder of PATH, Debian's /usr/bin, Homebrew's
and winget's folders. Each is run with --version, --help and --list-devices, so the list says its
build (the build LlamaFit sizes for should match: 0.7.0, b11669) and the devices it would use; one
that does not answer as llama-server is listed with the reason.

  --json    machine-readable output: engines[{path, origin, version, build_number, commit,
            devices[{name, description, total_bytes, free_bytes}], error}]

Exit status: 0 (also when none is found).
)";

std::string devicesText(const InstalledEngine& engine) {
    if (engine.error) {
        return "error: " + engine.error->message;
    }
    std::string text = "CPU";
    for (const ListedDevice& device : engine.devices) {
        text += ", " + device.name + " (" + device.description + ", " + formatMiB(device.totalBytes) + " MiB)";
    }
    return text;
}

} // namespace

int runEnginesCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--json"}, {"--help"}, {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (auto end = endOnHelpOrStrayArgument(*options, "engines", kUsage, io)) {
        return *end;
    }
    int qtArgc = 1;
    char qtName[] = "llamafit-cli";
    char* qtArgv[] = {qtName, nullptr};
    std::unique_ptr<QCoreApplication> ownApp;
    if (QCoreApplication::instance() == nullptr) {
        ownApp = std::make_unique<QCoreApplication>(qtArgc, qtArgv);
    }
    const std::vector<InstalledEngine> engines = discoverEngines();
    if (options->has("--json")) {
        Json list = Json::array();
        for (const InstalledEngine& engine : engines) {
            Json devices = Json::array();
            for (const ListedDevice& device : engine.devices) {
                devices.push_back({{"name", device.name},
                                   {"description", device.description},
                                   {"total_bytes", device.totalBytes},
                                   {"free_bytes", device.freeBytes}});
            }
            list.push_back(
                {{"path", engine.location.path},
                 {"origin", engine.location.origin},
                 {"version", engine.build ? Json(engine.build->version) : Json(nullptr)},
                 {"build_number", engine.build && engine.build->buildNumber ? Json(*engine.build->buildNumber) : Json(nullptr)},
                 {"commit", engine.build ? Json(engine.build->commit) : Json(nullptr)},
                 {"devices", std::move(devices)},
                 {"error", engine.error ? Json{{"code", engine.error->code}, {"message", engine.error->message}}
                                        : Json(nullptr)}});
        }
        printJson(io.out, Json{{"engines", std::move(list)}});
        return kExitOk;
    }
    if (engines.empty()) {
        io.out << "No llama-server found on PATH or in the usual folders.\n";
        return kExitOk;
    }
    TextTable table({"llama-server", "from", "build", "devices"});
    for (const InstalledEngine& engine : engines) {
        std::string build = "-";
        if (engine.build) {
            build = engine.build->version +
                    (engine.build->buildNumber ? " (b" + std::to_string(*engine.build->buildNumber) + ")" : "");
        }
        table.addRow({engine.location.path, engine.location.origin, build, devicesText(engine)});
    }
    table.print(io.out);
    return kExitOk;
}

} // namespace llamafit
