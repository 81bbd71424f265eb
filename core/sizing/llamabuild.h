#pragma once
// The llama.cpp build an estimate sizes for. llama.cpp changed how it reserves its worst-case
// graph several times (LlamaGeneration, serversettings.h); a build number says which of those
// changes a llama-server has. Build numbers are llama.cpp's own (`git rev-list --count HEAD` at
// the commit, printed by `llama-server --version` as "version: N (commit)" or, for a release,
// "version: 0.7.0 (build 11669, ...)"), so the boundaries below are the build numbers of the
// pull requests that made each change.
//
// Error codes: settings.bad-value (not "bNNNN" or "NNNN").

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llamafit {

// The build whose rules the core restates and checks against the real server: llama.cpp 0.7.0.
inline constexpr std::uint32_t kReferenceLlamaBuild = 11669;

// The generation of llama.cpp's reserve a build has.
LlamaGeneration generationOfBuild(std::uint32_t build);

// "b11669" or "11669" (as --llama-build takes it).
Result<std::uint32_t> parseLlamaBuild(std::string_view text);

// What an estimate for `build` restates, for the user: "b11669" for a build with the reference
// rules, else "b8183 (sized with the rules of builds before b7774)".
std::string sizedForText(std::uint32_t build);

} // namespace llamafit
