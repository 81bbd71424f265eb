#pragma once
// Reads a llama-server command line into ServerSettings (and back), with the flag vocabulary
// (flagtable.h). Used by llamafit-cli (`estimate -m MODEL -c 65536 -ctk q8_0 ...` takes the
// same flags as the server), the GUI's extra-flags field, the model profiles, the launcher
// and the tests. Pure: no I/O.
//
// Accepted: every flag of llama-server 0.7.0 (`llama-server --help`, Debian build b11669),
// short and long spellings, `--flag value` and `--flag=value`, plus the older spellings a
// user may paste from a blog post (`--no-mmap`, `--mlock`, bare `-fa`); those are mapped
// and a note says so. The result says, per flag, what it is and what it set (flags), besides
// the settings, the model, the GPUs and the notes.
//
// LlamaFit's own flags (not llama-server's): `--gpu [BACKEND:]NAME=MiB` adds a GPU to
// size for (repeatable; BACKEND is cuda, vulkan, rocm/hip, metal or other; with a backend
// and no name the device gets llama.cpp's buffer name, "CUDA0", "Vulkan1"), and
// `--gpu-igpu ...` the same for an integrated GPU that shares host memory.
//
// Error codes: args.missing-value (flag at the end without its value), args.bad-value
// (names the flag and the value), args.unknown-flag (names the flag),
// args.unexpected-argument (a word that is neither a flag nor a flag's value). Every error
// about a flag carries it as typed in Error::flag, and the setting it sets in Error::settings.

#include "core/common/result.h"
#include "core/flags/flagtable.h"
#include "core/sizing/serversettings.h"

#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

// One flag of a command line and what it was read as.
struct ParsedFlag {
    std::vector<std::string> words; // as typed, the flag and its values: {"-c", "8192"}, {"--port=80"}
    std::string spelling;           // the flag as typed, without an inline value: "--ctx-size"
    FlagValues values;              // its values: {"8192"}
    FlagKind kind = FlagKind::PassThrough;
    FlagId id = FlagId::Unnamed;
    std::optional<Setting> setting; // what it set (Memory flags)
    std::string_view reason;        // NotModelled: why (points into the static table)

    // "-c 8192", "--host 0.0.0.0": the spelling and the values, for lists and messages.
    std::string text() const;
    bool operator==(const ParsedFlag&) const = default;
};

struct ParsedServerArgs {
    std::string model; // -m / --model, empty if not given
    ServerSettings settings;
    std::vector<GpuDevice> gpus;    // from --gpu / --gpu-igpu, in order
    std::vector<ParsedFlag> flags;  // every flag, in order
    std::vector<std::string> notes; // spelling mappings: "--no-mmap (rejected by 0.7.0) sized as -lm none"
    // The text of `flags` the CLI and the GUI list: launcher and pass-through flags
    // ("--port 18080", "--no-warmup"), and not-modelled ones with their reason
    // ("--moe-cache-mib 512: adds a GPU cache ...").
    std::vector<std::string> ignoredFlags;
    std::vector<std::string> unmodelledFlags;
    bool operator==(const ParsedServerArgs&) const = default;
};

Result<ParsedServerArgs> parseServerArgs(const std::vector<std::string>& args);

// The 0.7.0 spellings of every setting that differs from llama-server's default, in the
// table's order; parseServerArgs(toServerArgs(s)).settings == s. The model path and GPUs
// are not included. Each tensor override gets its own -ot (a pattern may hold a comma).
std::vector<std::string> toServerArgs(const ServerSettings& settings);

// The words of the flags a launch passes on as typed: the pass-through and not-modelled
// flags and the launcher's own (--host, --port, ...), not -m (the model path goes
// separately), not the memory flags (toServerArgs re-spells them from the settings), not
// LlamaFit's --gpu.
std::vector<std::string> passThroughWords(const ParsedServerArgs& parsed);

// Copies the field `setting` names from `from` into `to`.
void copySetting(Setting setting, const ServerSettings& from, ServerSettings& to);

} // namespace llamafit
