#pragma once
// The llama-server 0.7.0 flags that serverargs.cpp does not read into ServerSettings:
// each spelling, how many values it takes, and whether it changes memory in a way the
// estimate does not model. Taken from `llama-server --help` of the Debian build b11669
// (common/arg.cpp in llama.cpp), so a pasted command line parses without "unknown flag".
// Used only by serverargs.cpp and its tests.

#include <string_view>

namespace llamafit {

enum class FlagEffect {
    None,       // does not change what llama-server allocates (port, sampling, logging, ...)
    Unmodelled, // changes memory, but the estimate does not model it (reason says how)
};

struct ServerFlagInfo {
    std::string_view spellings; // every spelling, space-separated: "-t --threads"
    int valueCount = 0;         // values after the flag (0, 1, or 2 for --control-vector-layer-range)
    FlagEffect effect = FlagEffect::None;
    std::string_view reason; // for Unmodelled: what it changes
};

// The entry holding `spelling` exactly ("-t", "--threads"), or nullptr.
const ServerFlagInfo* findServerFlag(std::string_view spelling);

} // namespace llamafit
