#pragma once
// Exports of one llama-server launch (model + ServerSettings + address) in the formats
// people share: a POSIX shell script, a Windows .bat, a `--models-preset` INI section for
// llama-server's router, and a llama-swap `models:` entry. Used by `llamafit-cli export`
// and the GUI's "copy command" actions. Pure: returns text, writes nothing. The flags come
// from toServerArgs() (core/flags/serverargs.h), so an export starts the same server the
// estimate was made for.
//
// Quoting, per target (each documented where it is done):
//   sh   every argument in single quotes ('' -> '\''), so no byte is special; UTF-8 passes as is.
//   bat  the program in plain double quotes; each argument quoted for the C runtime's argv
//        rules (CommandLineToArgvW) and then every cmd.exe metacharacter caret-escaped, with
//        % doubled (batch files expand %VAR% before carets are read). The script runs
//        `chcp 65001` and is UTF-8 so non-ASCII paths survive; delayed expansion is off so !
//        is literal. A newline cannot be passed through cmd: export.unrepresentable.
//   ini  llama.cpp common/preset.cpp reads a value raw to the end of the line and stops at
//        ';' or '#', with no quoting: such values, newlines and edge spaces are refused.
//   llama-swap  `cmd:` is split by llama-swap with shell rules, so it holds the sh quoting,
//        in a YAML block scalar (no YAML escaping needed); the port is llama-swap's ${PORT}.
//
// Error codes: export.unrepresentable (names the format and the argument).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct ExportSpec {
    std::string serverBinary = "llama-server"; // a path or a name found on PATH
    std::string modelPath;
    ServerSettings settings;
    std::string host = "127.0.0.1";
    std::optional<std::uint16_t> port;  // nullopt: llama-server's default (9931 on 0.7.0)
    std::vector<std::string> extraArgs; // passed after the settings, as given ("--metrics")
    std::string name;                   // INI section / llama-swap model id; empty = model file stem
    bool operator==(const ExportSpec&) const = default;
};

// argv without the program: -m MODEL, the settings' flags, --host, --port, extraArgs.
std::vector<std::string> exportArguments(const ExportSpec& spec);

std::string quotePosixArgument(std::string_view argument);
Result<std::string> quoteBatchArgument(std::string_view argument);
// One .bat line running `program args`: the program in double quotes (% doubled), each argument
// quoted by quoteBatchArgument. Also the ggml-rpc-server scripts' (rpcservercommand.h).
Result<std::string> batchCommandLine(std::string_view program, const std::vector<std::string>& args);

Result<std::string> exportShellScript(const ExportSpec& spec);
Result<std::string> exportBatchFile(const ExportSpec& spec); // CRLF line ends
Result<std::string> exportPresetIni(const ExportSpec& spec);
Result<std::string> exportLlamaSwapYaml(const ExportSpec& spec);

// The pieces a set of models is exported from (core/modelset/modelsetexport.h): one entry under
// llama-swap's `models:` (indented two spaces, no `models:` line), the model id it is keyed by
// (the section name of exportPresetIni), and a YAML double-quoted scalar.
Result<std::string> llamaSwapModelEntry(const ExportSpec& spec);
std::string exportModelName(const ExportSpec& spec);
std::string yamlQuoted(std::string_view text);

} // namespace llamafit
