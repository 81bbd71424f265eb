#pragma once
// The settings panel's "extra flags" field: llama-server flags typed as text. splitShellWords()
// splits the text like a POSIX shell would (blanks separate words; '...' and "..." quote;
// a backslash escapes the next character). applyExtraFlags() reads the words with the one
// flag parser (parseServerArgs, core/flags/serverargs.h): flags that change memory (-c, -ot,
// -ts, -cmoe, -nkvo, ...) are applied to the settings, every other flag (-t 8, --alias x,
// --port ...) is passed through to the launch. Used by SettingsPanel and its tests. Pure: no
// widgets, no I/O; any thread.
//
// Error codes: flags.unterminated-quote, flags.trailing-backslash, flags.not-here (-m, LlamaFit's
// own --gpu, and --rpc: the model picker, the machine and the Cluster dock choose those), and the
// args.* codes of parseServerArgs (unknown flag, missing or bad value).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

Result<std::vector<std::string>> splitShellWords(std::string_view text);

struct ExtraFlags {
    ServerSettings settings;                  // the base settings with the memory flags applied
    std::vector<std::string> memoryFlags;     // the flags applied to settings, one per entry: "-c 8192"
    std::vector<std::string> passThrough;     // the other words, in order, for SizingSession::setExtraArgs
    std::vector<std::string> unmodelledFlags; // passed through, change memory, not modelled (parseServerArgs)
    std::vector<std::string> notes;           // old spellings mapped (parseServerArgs)
    bool operator==(const ExtraFlags&) const = default;
};

// Later flags win, as in llama-server; a memory flag replaces the base's value of each setting
// it names (the field's -ot words replace the base's tensor overrides; several -ot append).
Result<ExtraFlags> applyExtraFlags(const ServerSettings& base, const std::vector<std::string>& words);

} // namespace llamafit
