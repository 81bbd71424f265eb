// The sizing commands' shared preamble; see sizingcommand.h.

#include "app/cli/sizingcommand.h"

#include "app/cli/serverbuild.h"

#include "core/sizing/rpcdevices.h"
#include "core/system/rpchostquery.h"

#include <algorithm>
#include <cstdlib>
#include <ostream>

namespace llamafit {

namespace {

// inspect's model: -m/--model or one positional word, no llama-server flags.
Result<SizingRequest> loadModelOnly(const CliOptions& options, std::string_view command) {
    std::string model = options.value("-m").value_or(options.value("--model").value_or(""));
    for (const std::string& word : options.rest) {
        if (!model.empty() || (word.size() > 1 && word[0] == '-')) {
            return makeError("cli.unexpected-argument",
                             std::string(command) + " takes one MODEL, not '" + word + "'");
        }
        model = word;
    }
    Result<LoadedModel> loaded = loadModel(model);
    if (!loaded) {
        return loaded.error();
    }
    return SizingRequest{std::move(*loaded), {}, {}};
}

} // namespace

// The --rpc servers given without their free memory (no `=FREE_MiB`, no --gpu rpc:...) are asked
// live through the installed llama-server (rpchostquery.h), which reports what each really has
// free; the plan then splits by it as llama.cpp will.
Result<bool> addLiveRpcDevices(ParsedServerArgs& args, const std::string& llamaServer,
                               std::vector<ListedDevice>* listing) {
    std::vector<std::string> missing;
    for (const std::string& endpoint : args.settings.rpcServers) {
        const std::string name = rpcBufferName(endpoint);
        if (std::none_of(args.gpus.begin(), args.gpus.end(),
                         [&](const GpuDevice& gpu) { return gpu.name == name; })) {
            missing.push_back(endpoint);
        }
    }
    if (missing.empty()) {
        return true;
    }
    RpcHostQuery query;
    query.llamaServer = llamaServer;
    query.endpoints = missing;
    Result<std::vector<ListedDevice>> listed = queryListedDevices(query);
    if (!listed) {
        Error error = listed.error();
        std::string offline;
        for (const std::string& endpoint : missing) {
            offline += (offline.empty() ? "" : ",") + endpoint + "=FREE_MiB";
        }
        error.message +=
            " (asking for the RPC servers' free memory; to plan without a connection give it: --rpc " +
            offline + ")";
        return error;
    }
    for (const std::string& endpoint : missing) {
        const ListedDevice* device = findRpcDevice(*listed, endpoint);
        if (device == nullptr) {
            return makeError("rpc.not-listed", "llama-server did not list the RPC server " + endpoint +
                                                   ": give its free memory as --rpc " + endpoint +
                                                   "=FREE_MiB");
        }
        args.gpus.push_back(rpcDevice(endpoint, device->freeBytes));
    }
    args.gpus = inLlamaDeviceOrder(args.settings, std::move(args.gpus));
    if (listing != nullptr) {
        *listing = std::move(*listed);
    }
    return true;
}

int runSizingCommand(const std::vector<std::string>& args, const CommandIo& io, const SizingCommand& command,
                     const std::function<int(const SizingRun& run)>& body) {
    std::vector<CliOptionSpec> specs{{"--json"}, {"--help"}, {"-h"}};
    if (command.modelOnly) {
        specs.insert(specs.end(), {{"-m", true}, {"--model", true}});
    } else {
        specs.push_back({"--server", true}); // the llama-server asked for --rpc servers' free memory
        specs.push_back({"--llama-build", true});
    }
    specs.insert(specs.end(), command.options.begin(), command.options.end());
    Result<CliOptions> options = splitCliOptions(args, specs);
    if (!options) {
        return reportError(io, options.error(), false);
    }
    const bool json = command.jsonOutput ? command.jsonOutput(*options) : options->has("--json");
    if (options->has("--help") || options->has("-h")) {
        io.out << command.usage;
        return kExitOk;
    }
    if (command.checkOptions) {
        if (Result<bool> checked = command.checkOptions(*options); !checked) {
            return reportError(io, checked.error(), false);
        }
    }
    Result<SizingRequest> request =
        command.modelOnly ? loadModelOnly(*options, command.name) : loadSizingRequest(options->rest);
    if (!request) {
        return reportError(io, request.error(), json);
    }
    std::uint32_t llamaBuild = kReferenceLlamaBuild;
    if (const std::optional<std::string> build = options->value("--llama-build")) {
        Result<std::uint32_t> parsed = parseLlamaBuild(*build);
        if (!parsed) {
            return reportError(io, parsed.error(), json);
        }
        llamaBuild = *parsed;
    } else if (const std::optional<std::string> server = options->value("--server");
               server && !command.modelOnly) {
        // The llama-server that will run it: size for its build (one that cannot say: the
        // reference build and a note, as for `launch`; the --rpc query names a missing server).
        llamaBuild = buildToSizeFor(*server, io.err);
    }
    if (!command.modelOnly) {
        request->args.settings.llamaBuild = llamaBuild;
        if (Result<bool> live = addLiveRpcDevices(request->args, llamaServerProgram(*options)); !live) {
            return reportError(io, live.error(), json);
        }
    }
    return body(SizingRun{io, std::move(*options), std::move(*request), json, llamaBuild});
}

} // namespace llamafit
