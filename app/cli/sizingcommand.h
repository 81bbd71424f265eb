#pragma once
// The preamble the sizing commands (inspect, estimate, fit, sweep, plan) share: split the
// command's own options from the llama-server flags, answer --help, load the model (a GGUF
// file or a built-in card id) with the flags parsed, and report any error the same way
// (reportError: the stderr line, and the JSON error object when the output is JSON). The
// command's body gets a ready SizingRun and keeps only what is its own.
// Used by the <name>command.cpp files of app/cli.
//
// The sizing commands other than inspect take --llama-build bNNNN: the llama.cpp build to size for
// (llamabuild.h), the reference build b11669 when not given.
//
// Error codes: cli.missing-value (splitCliOptions), those of parseServerArgs and loadModel,
// cli.unexpected-argument (a second MODEL for inspect), settings.bad-value (--llama-build), and
// the command's own.

#include "app/cli/commandline.h"
#include "app/cli/modelsource.h"
#include "core/server/devicelist.h"
#include "core/sizing/llamabuild.h"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct SizingCommand {
    std::string_view name;  // "estimate": names the command in its errors
    std::string_view usage; // printed for --help / -h
    // The command's own options; --json, --help and -h are always added.
    std::vector<CliOptionSpec> options{};
    // inspect: the model is -m/--model or the one positional word, and there are no
    // llama-server flags; otherwise the words left are llama-server flags with -m.
    bool modelOnly = false;
    // Whether errors go out as JSON too; default: --json was given (sweep: --format json).
    std::function<bool(const CliOptions&)> jsonOutput{};
    // Checks the options before the model is loaded (sweep's --format); its error is
    // reported as text, like a usage error.
    std::function<Result<bool>(const CliOptions&)> checkOptions{};
};

// What a sizing command's body starts from.
struct SizingRun {
    const CommandIo& io;
    CliOptions options;
    SizingRequest request; // inspect: only the model
    bool json = false;
    // The llama.cpp build sized for (--llama-build, default the reference build); its generation
    // is in request.args.settings.
    std::uint32_t llamaBuild = kReferenceLlamaBuild;

    // Reports `error` (text, and JSON when the output is JSON); returns kExitError.
    int fail(const Error& error) const { return reportError(io, error, json); }
};

// The --rpc servers of `args` given without their free memory (no `=FREE_MiB`, no --gpu rpc:...),
// asked live through `llamaServer` (rpchostquery.h) and added to args.gpus in llama.cpp's order.
// Also `launch`'s prediction, which takes the whole listing (`listing`, when not null: left empty
// when no server had to be asked). Error codes: those of queryListedDevices, rpc.not-listed.
Result<bool> addLiveRpcDevices(ParsedServerArgs& args, const std::string& llamaServer,
                               std::vector<ListedDevice>* listing = nullptr);

// Runs the preamble, then `body` with the ready SizingRun; returns the exit status.
int runSizingCommand(const std::vector<std::string>& args, const CommandIo& io, const SizingCommand& command,
                     const std::function<int(const SizingRun& run)>& body);

} // namespace llamafit
