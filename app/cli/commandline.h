#pragma once
// What every llamafit-cli command shares: the output streams, exit codes, the split of
// LlamaFit's own options (--json, --budget-mib, ...) from the llama-server flags that go to
// parseServerArgs() (core/flags/serverargs.h), and the error report (stderr line + JSON error object on
// stdout). Used by the command files in app/cli; main.cpp only picks the command.

#include "core/common/result.h"

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct CommandIo {
    std::ostream& out;
    std::ostream& err;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitError = 2; // bad usage, model, flag or setting: the message names it

// One option of the CLI itself (never a llama-server flag).
struct CliOptionSpec {
    std::string_view name; // "--json"
    bool takesValue = false;
};

struct CliOptions {
    std::map<std::string, std::string, std::less<>> values; // option name -> value ("" for switches)
    std::vector<std::string> rest;                          // everything else, in order

    bool has(std::string_view name) const { return values.find(name) != values.end(); }
    std::optional<std::string> value(std::string_view name) const;
};

// Takes the options of `specs` out of `args` ("--name value" or "--name=value"); the rest
// (llama-server flags and positionals) stays in order. Error code: cli.missing-value.
Result<CliOptions> splitCliOptions(const std::vector<std::string>& args,
                                   const std::vector<CliOptionSpec>& specs);

// Writes "llamafit-cli: <message> [<code>]" to stderr and, for --json, {"error": {...}} to stdout.
int reportError(const CommandIo& io, const Error& error, bool json);

// For commands that take only their own options (cards, machines, devices): prints `usage`
// for --help/-h, or reports a stray argument (cli.unexpected-argument). Returns the exit
// status when the command should end there, nullopt when it should go on.
std::optional<int> endOnHelpOrStrayArgument(const CliOptions& options, std::string_view command,
                                            std::string_view usage, const CommandIo& io);

// The llama-server program a command runs or asks: --server PATH, else $LLAMAFIT_LLAMA_SERVER,
// else "llama-server" (found on the PATH when started).
std::string llamaServerProgram(const CliOptions& options);

// "4096,8192" -> numbers; cli.bad-value naming `option` otherwise.
Result<std::vector<std::uint32_t>> parseNumberList(std::string_view option, std::string_view text);
Result<std::uint64_t> parseMiB(std::string_view option, std::string_view text);

std::string formatMiB(std::uint64_t bytes);      // "680.00", two decimals like llama.cpp's logs
std::string mibWithUnit(std::uint64_t bytes);    // "680.00 MiB"
std::string formatSignedMiB(std::int64_t bytes); // "-12.50": a headroom that may be negative
std::string formatGiB(std::uint64_t bytes);      // "26.59"
std::string joinArgs(const std::vector<std::string>& args);

} // namespace llamafit
