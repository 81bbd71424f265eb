// `llamafit-cli export`: the llama-server launch for -m MODEL and the given flags as a
// POSIX shell script, a Windows .bat, a --models-preset INI section or a llama-swap entry.

#include "app/cli/commands.h"

#include "core/flags/serverargs.h"
#include "core/server/exports.h"
#include "core/system/apikeyfile.h"

#include <charconv>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kExportUsage =
    R"(usage: llamafit-cli export --format sh|bat|ini|llama-swap -m MODEL [llama-server flags]
                           [--server PATH] [--host ADDR] [--port N] [--name ID] [--expose]
       llamafit-cli export --set FILE.json --format ini|llama-swap [--machine ID|FILE.json]
                           (a model set: 'llamafit-cli export --set x --help')

Prints the llama-server launch for MODEL with the given flags, in one of:
  sh          a POSIX shell script (every argument single-quoted)
  bat         a Windows batch file (UTF-8, CRLF; arguments quoted for cmd.exe and the C runtime)
  ini         a section for llama-server --models-preset (router mode)
  llama-swap  a models: entry for llama-swap's config.yaml (port from ${PORT})

  -m, --model MODEL    the GGUF path written into the export (not opened)
  llama-server flags   the flags that shape memory (-c, -np, -ctk, ...) in their 0.7.0
                       spelling, then every other llama-server flag as given
  --server PATH        the llama-server program (default: llama-server on PATH)
  --host ADDR          bind address (default 127.0.0.1)
  --port N             port (default: llama-server's own, 9931 on 0.7.0)
  --name ID            INI section / llama-swap model id (default: the model file name)
  --expose             allow a --host other than loopback; the export then passes
                       --api-key-file with LlamaFit's generated key file (the script names the
                       file, never the key). Without it a non-loopback --host is refused.

Exit status: 0 printed, 2 bad flag or an argument the format cannot hold.
)";

} // namespace

int runExportCommand(const std::vector<std::string>& args, const CommandIo& io) {
    if (hasSetOption(args)) {
        return runExportSetCommand(args, io);
    }
    Result<CliOptions> options = splitCliOptions(args, {{"--format", true},
                                                        {"--server", true},
                                                        {"--host", true},
                                                        {"--port", true},
                                                        {"--name", true},
                                                        {"--expose"},
                                                        {"--help"},
                                                        {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    if (options->has("--help") || options->has("-h")) {
        io.out << kExportUsage;
        return kExitOk;
    }
    const std::string format = options->value("--format").value_or("");
    if (format != "sh" && format != "bat" && format != "ini" && format != "llama-swap") {
        return reportError(io, makeError("cli.bad-value", "--format must be sh, bat, ini or llama-swap"),
                           false);
    }
    Result<ParsedServerArgs> parsed = parseServerArgs(options->rest);
    if (!parsed) {
        return reportError(io, parsed.error(), false);
    }
    if (parsed->model.empty()) {
        return reportError(io, makeError("cli.missing-model", "-m MODEL is required"), false);
    }
    ExportSpec spec;
    spec.modelPath = parsed->model;
    spec.settings = parsed->settings;
    spec.serverBinary = options->value("--server").value_or("llama-server");
    spec.host = options->value("--host").value_or("127.0.0.1");
    spec.name = options->value("--name").value_or("");
    if (const std::optional<std::string> port = options->value("--port")) {
        std::uint16_t number = 0;
        const auto [end, ec] = std::from_chars(port->data(), port->data() + port->size(), number);
        if (ec != std::errc{} || end != port->data() + port->size() || number == 0) {
            return reportError(io, makeError("cli.bad-value", "--port must be 1-65535, not '" + *port + "'"),
                               false);
        }
        spec.port = number;
    }
    Result<std::vector<std::string>> extraArgs =
        prepareExposure(spec.host, passThroughWords(*parsed), options->has("--expose"));
    if (!extraArgs) {
        return reportError(io, extraArgs.error(), false);
    }
    spec.extraArgs = std::move(*extraArgs);
    const Result<std::string> text = format == "sh"    ? exportShellScript(spec)
                                     : format == "bat" ? exportBatchFile(spec)
                                     : format == "ini" ? exportPresetIni(spec)
                                                       : exportLlamaSwapYaml(spec);
    if (!text) {
        return reportError(io, text.error(), false);
    }
    io.out << *text;
    return kExitOk;
}

} // namespace llamafit
