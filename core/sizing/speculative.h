#pragma once
// Speculative decoding as llama-server 0.7.0 takes it (--spec-type, --spec-draft-n-max,
// --spec-draft-n-ubatch): the types it knows and the settings that change memory. Part of
// ServerSettings; read by the estimate's MTP draft context (mtpcontext.h) and by the flag
// table (core/flags/speculativeflags.h). Pure data and functions, any thread.
//
// Source: llama.cpp common/arg.cpp (--spec-type's value list, "comma-separated list of types"),
// common/common.h (speculative defaults: draft.n_max 3, draft.n_ubatch 0 = the main -ub).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class SpeculativeType {
    DraftSimple, // draft-simple: a draft model (-md)
    DraftEagle3, // draft-eagle3: an EAGLE-3 draft model (-md)
    DraftMtp,    // draft-mtp: the model's own NextN/MTP block, a second context on the same weights
    DraftDflash, // draft-dflash: a DFlash draft model (-md)
    DraftDspark, // draft-dspark: a DSpark draft model (-md)
    NgramSimple, // ngram-*: drafts from the prompt's own n-grams, no model, no context
    NgramMapK,
    NgramMapK4v,
    NgramMod,
    NgramCache,
};

struct SpeculativeSettings {
    std::vector<SpeculativeType> types; // --spec-type, in order; empty = none (the default)
    std::uint32_t draftMax = 3;         // --spec-draft-n-max: tokens drafted per step
    std::uint32_t draftUbatch = 0;      // --spec-draft-n-ubatch: the draft context's n_ubatch; 0 = -ub
    bool uses(SpeculativeType type) const;
    bool operator==(const SpeculativeSettings&) const = default;
};

// "draft-mtp", ... as --spec-type spells them.
std::string_view speculativeTypeName(SpeculativeType type);
std::optional<SpeculativeType> speculativeTypeFromName(std::string_view name);
// Types that need a second model file (-md): not sized yet (issue 11 item 2).
bool needsDraftModel(SpeculativeType type);

// Tokens the target verifies per sequence and step: 1 + --spec-draft-n-max with a draft-* type,
// else 1. llama-server reserves that many outputs per slot (n_outputs_max; measured on 0.7.0:
// 4 for -np 1 with draft-simple or draft-mtp, 16 for -np 4). The ngram types reserve more (49 at
// -np 1 for ngram-simple) by their own --spec-ngram-* sizes, which are not modelled.
std::uint32_t verifiedTokensPerSequence(const SpeculativeSettings& settings);
bool usesNgramTypes(const SpeculativeSettings& settings);

// What the estimate leaves out for these settings, for its notes (empty when nothing).
std::vector<std::string> speculativeNotes(const SpeculativeSettings& settings);

} // namespace llamafit
