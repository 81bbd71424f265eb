#pragma once
// Reads a llama-server command line into ServerSettings (and back). Used by llamafit-cli
// (`estimate -m MODEL -c 65536 -ctk q8_0 ...` takes the same flags as the server), by the
// tests and later by the launcher to build the server's argv. Pure: no I/O.
//
// Accepted: every flag of llama-server 0.7.0 (`llama-server --help`, Debian build b11669),
// short and long spellings, `--flag value` and `--flag=value`, plus the older spellings a
// user may paste from a blog post (`--no-mmap`, `--mlock`, bare `-fa`); those are mapped
// and a note says so. Flags that change memory are read into ServerSettings; the others
// are listed in ignoredFlags, or in unmodelledFlags when they do change memory in ways the
// estimate does not model (draft model, --moe-cache-mib, ...).
//
// LlamaFit's own flags (not llama-server's): `--gpu [BACKEND:]NAME=MiB` adds a GPU to
// size for (repeatable; BACKEND is cuda, vulkan, rocm/hip, metal or other; with a backend
// and no name the device gets llama.cpp's buffer name, "CUDA0", "Vulkan1"), and
// `--gpu-igpu ...` the same for an integrated GPU that shares host memory.
//
// Error codes: args.missing-value (flag at the end without its value), args.bad-value
// (names the flag and the value), args.unknown-flag (names the flag),
// args.unexpected-argument (a word that is neither a flag nor a flag's value).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <string>
#include <vector>

namespace llamafit {

struct ParsedServerArgs {
    std::string model; // -m / --model, empty if not given
    ServerSettings settings;
    std::vector<GpuDevice> gpus;           // from --gpu / --gpu-igpu, in order
    std::vector<std::string> ignoredFlags; // accepted, no effect on memory: "--port 18080", "--no-warmup"
    std::vector<std::string>
        unmodelledFlags;            // accepted, change memory, not modelled: "--moe-cache-mib 512: ..."
    std::vector<std::string> notes; // spelling mappings: "--no-mmap (rejected by 0.7.0) sized as -lm none"
    bool operator==(const ParsedServerArgs&) const = default;
};

Result<ParsedServerArgs> parseServerArgs(const std::vector<std::string>& args);

// The 0.7.0 spellings of every setting that differs from llama-server's default, in a
// fixed order; parseServerArgs(toServerArgs(s)).settings == s. The model path and GPUs
// are not included. Each tensor override gets its own -ot (a pattern may hold a comma).
std::vector<std::string> toServerArgs(const ServerSettings& settings);

} // namespace llamafit
