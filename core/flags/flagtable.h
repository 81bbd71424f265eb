#pragma once
// The flag vocabulary: one table of every llama-server flag LlamaFit knows, and the one
// place that knows them. Each row holds the flag's spellings (llama-server 0.7.0's first,
// then the other spellings other builds used), its value grammar, its kind (sets memory,
// owned by the launcher, LlamaFit's own, passes through, or not modelled and why), the
// Setting it sets, and for the memory flags how its value is read into ServerSettings and
// written back. Everything else asks this table: the parser (serverargs.h), toServerArgs,
// the argv for one build (core/server/buildargv.h), the GUI's extra-flags field and the CLI's
// pass-through. Adding a flag is one row (plus its sizing rule once it is modelled).
//
// Source of the rows: `llama-server --help` of 0.7.0 (Debian build b11669), which llama.cpp
// common/arg.cpp builds from the same table its parser uses. Pure data, any thread.

#include "core/common/result.h"
#include "core/common/setting.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct ParsedServerArgs;
struct ServerSettings;

enum class FlagKind {
    Memory,      // read into ServerSettings: changes what llama-server allocates (-c, -ctk, -ngl, ...)
    Launcher,    // the launcher decides it (-m, --host, --port, --metrics, -lv); no memory effect
    LlamaFit,    // LlamaFit's own, never passed to llama-server (--gpu, --gpu-igpu)
    PassThrough, // llama-server's, no effect on memory (-t, --alias, sampling, ...): passed as typed
    NotModelled, // llama-server's, changes memory in a way the estimate does not model (reason says how)
};

enum class ValueGrammar {
    None,     // a switch: --swa-full
    One,      // one value: -c 4096 or -c=4096
    Two,      // two values: --control-vector-layer-range 1 5
    Optional, // a value when the next word reads as one: `-fa on`, or a bare `-fa` (older builds)
};

// Rows code refers to by identity (the launcher's flags, a spelling another row's value is
// re-spelled as); every other row is Unnamed and found by spelling or Setting.
enum class FlagId {
    Unnamed,
    Model,
    Host,
    Port,
    Metrics,
    LogVerbosity,
    NoMmap,
    Gpu,
    IntegratedGpu,
    Version,
    Fit,        // -fit on|off: llama.cpp's own fit (read by fitflags.h)
    FitTarget,  // -fitt MiB[,MiB...]
    FitContext, // -fitc N
};

// One occurrence's values, as typed ("65536"); empty for a switch.
using FlagValues = std::vector<std::string>;

// Reads one occurrence into `parsed` (its settings, model, GPUs, notes). `spelling` is the flag
// as typed, for messages. nullopt on success, else an args.bad-value Error.
using FlagReader = std::optional<Error> (*)(std::string_view spelling, const FlagValues& values,
                                            ParsedServerArgs& parsed);
// The occurrences of this row that spell `settings` (none when the setting is at its
// default): one for most, one per tensor override for -ot.
using FlagWriter = std::vector<FlagValues> (*)(const ServerSettings& settings);

struct FlagRow {
    std::string_view spellings; // space-separated; the first is 0.7.0's, the one LlamaFit writes
    ValueGrammar grammar = ValueGrammar::None;
    FlagKind kind = FlagKind::PassThrough;
    std::optional<Setting> setting;                   // Memory rows: the ServerSettings field it sets
    FlagReader read = nullptr;                        // Memory, LlamaFit rows and -m
    FlagWriter write = nullptr;                       // Memory rows toServerArgs writes
    bool (*acceptsValue)(std::string_view) = nullptr; // Optional grammar: whether a word is its value
    std::string_view reason;                          // NotModelled: what it changes that is not estimated
    FlagId id = FlagId::Unnamed;

    std::string_view canonicalSpelling() const { return spellings.substr(0, spellings.find(' ')); }
    bool hasSpelling(std::string_view spelling) const;
    // Every spelling, in the row's order.
    std::vector<std::string_view> allSpellings() const;
};

// Every row, in the order toServerArgs writes the memory flags.
std::span<const FlagRow> flagTable();

// The row holding `spelling` exactly ("-c", "--ctx-size"), or nullptr.
const FlagRow* findFlag(std::string_view spelling);
// The row of `id` (never Unnamed).
const FlagRow& flagRow(FlagId id);
// The row whose writer spells `setting` ("-c" for Setting::Context).
const FlagRow& flagRowOf(Setting setting);

// The flag name of a word: "--ctx-size" of "--ctx-size=4096".
std::string_view flagName(std::string_view word);

} // namespace llamafit
