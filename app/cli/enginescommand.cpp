// `llamafit-cli engines`: the llama-server builds already on this machine -- where each is, its
// build, and the devices it would use.

#include "app/cli/commands.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/qtapplicationscope.h"
#include "app/cli/texttable.h"
#include "core/system/enginediscovery.h"
#include "core/system/enginefetch.h"
#include "core/system/processenvironment.h"

#include <QCoreApplication>

#include <memory>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kEnginesUsage = R"(usage: llamafit-cli engines [--json]
       llamafit-cli engines --fetch cpu|vulkan|cuda|hip|metal [--json]

Lists the llama-server builds on this machine: the ones LlamaFit fetched, every folder of PATH,
Debian's /usr/bin, Homebrew's and winget's folders. Each is run with --version, --help and --list-devices, so the list says its
build (the build LlamaFit sizes for should match: 0.7.0, b11669) and the devices it would use; one
that does not answer as llama-server is listed with the reason.

  --fetch BACKEND
            first get llama.cpp's latest official release build for this OS and CPU with that
            backend (GitHub's releases/latest; $LLAMAFIT_LLAMA_RELEASES_URL names another
            listing, e.g. a mirror). Its sha256 is checked against the digest the release
            publishes before it is unpacked into LlamaFit's engines folder
            (~/.local/share/llamafit/engines); nothing that does not match is run.
  --json    machine-readable output: engines[{path, origin, version, build_number, commit,
            devices[{name, description, total_bytes, free_bytes}], error}], and fetched{tag,
            folder, program} with --fetch

Exit status: 0 (also when none is found), 1 a fetch that failed (the message names why), 2 bad usage.
)";

std::string devicesText(const InstalledEngine& engine) {
    if (engine.error) {
        return "error: " + engine.error->message;
    }
    std::string text = "CPU";
    for (const ListedDevice& device : engine.devices) {
        text +=
            ", " + device.name + " (" + device.description + ", " + formatMiB(device.totalBytes) + " MiB)";
    }
    return text;
}

} // namespace

int runEnginesCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--json"}, {"--help"}, {"-h"}, {"--fetch", true}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (auto end = endOnHelpOrStrayArgument(*options, "engines", kEnginesUsage, io)) {
        return *end;
    }
    const QtApplicationScope application;
    const bool json = options->has("--json");
    std::optional<FetchedEngine> fetched;
    if (const std::optional<std::string> backendName = options->value("--fetch")) {
        const std::optional<EngineBackend> backend = parseEngineBackend(*backendName);
        if (!backend) {
            return reportError(
                io, makeError("cli.bad-value", "--fetch takes cpu, vulkan, cuda, hip or metal"), json);
        }
        EngineFetchRequest request;
        if (const std::optional<std::string> url = processEnvironment()("LLAMAFIT_LLAMA_RELEASES_URL")) {
            request.releasesUrl = *url;
        }
        request.enginesRoot = defaultEnginesRoot();
        request.backend = *backend;
        request.os = currentOsKind();
        request.cpu = currentCpuName();
        HubClientOptions http;
        http.endpoint = request.releasesUrl; // its origin; no token goes anywhere
        HubClient client(http);
        int lastPercent = -1;
        auto engine = fetchEngine(client, request, [&](const HubDownloadProgress& progress) {
            const int percent = progress.totalBytes > 0
                                    ? static_cast<int>(100 * progress.totalDone / progress.totalBytes)
                                    : 0;
            if (percent != lastPercent && !json) {
                lastPercent = percent;
                io.err << "\r" << progress.repoPath << ": " << percent << " %   " << std::flush;
            }
        });
        if (lastPercent >= 0) {
            io.err << "\n";
        }
        if (!engine) {
            reportError(io, engine.error(), json);
            return 1;
        }
        fetched = *engine;
        if (!json) {
            io.out << "Fetched llama.cpp " << engine->tag << " into " << engine->folder << "\n\n";
        }
    }
    EngineDiscoveryOptions discovery;
    discovery.ownEngineFolders = ownEngineFolders(defaultEnginesRoot(), currentOsKind());
    const std::vector<InstalledEngine> engines = discoverEngines(discovery);
    if (json) {
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
                 {"build_number", engine.build && engine.build->buildNumber ? Json(*engine.build->buildNumber)
                                                                            : Json(nullptr)},
                 {"commit", engine.build ? Json(engine.build->commit) : Json(nullptr)},
                 {"devices", std::move(devices)},
                 {"error", engine.error
                               ? Json{{"code", engine.error->code}, {"message", engine.error->message}}
                               : Json(nullptr)}});
        }
        Json out{{"engines", std::move(list)}};
        if (fetched) {
            out["fetched"] = {
                {"tag", fetched->tag}, {"folder", fetched->folder}, {"program", fetched->program}};
        }
        printJson(io.out, out);
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
            build =
                engine.build->version +
                (engine.build->buildNumber ? " (b" + std::to_string(*engine.build->buildNumber) + ")" : "");
        }
        table.addRow({engine.location.path, engine.location.origin, build, devicesText(engine)});
    }
    table.print(io.out);
    return kExitOk;
}

} // namespace llamafit
