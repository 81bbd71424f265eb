// The --spec-type vocabulary of llama-server 0.7.0 (common/arg.cpp, common/speculative.cpp).
#include "core/sizing/speculative.h"

#include <algorithm>
#include <array>
#include <utility>

namespace llamafit {
namespace {

constexpr std::array<std::pair<SpeculativeType, std::string_view>, 10> kNames{{
    {SpeculativeType::DraftSimple, "draft-simple"},
    {SpeculativeType::DraftEagle3, "draft-eagle3"},
    {SpeculativeType::DraftMtp, "draft-mtp"},
    {SpeculativeType::DraftDflash, "draft-dflash"},
    {SpeculativeType::DraftDspark, "draft-dspark"},
    {SpeculativeType::NgramSimple, "ngram-simple"},
    {SpeculativeType::NgramMapK, "ngram-map-k"},
    {SpeculativeType::NgramMapK4v, "ngram-map-k4v"},
    {SpeculativeType::NgramMod, "ngram-mod"},
    {SpeculativeType::NgramCache, "ngram-cache"},
}};

} // namespace

bool SpeculativeSettings::uses(SpeculativeType type) const {
    return std::find(types.begin(), types.end(), type) != types.end();
}

std::string_view speculativeTypeName(SpeculativeType type) {
    for (const auto& [known, name] : kNames) {
        if (known == type) {
            return name;
        }
    }
    return "";
}

std::optional<SpeculativeType> speculativeTypeFromName(std::string_view name) {
    for (const auto& [type, known] : kNames) {
        if (known == name) {
            return type;
        }
    }
    return std::nullopt;
}

bool needsDraftModel(SpeculativeType type) {
    return type == SpeculativeType::DraftSimple || type == SpeculativeType::DraftEagle3 ||
           type == SpeculativeType::DraftDflash || type == SpeculativeType::DraftDspark;
}

std::uint32_t verifiedTokensPerSequence(const SpeculativeSettings& settings) {
    const bool drafts = std::any_of(settings.types.begin(), settings.types.end(), [](SpeculativeType type) {
        return needsDraftModel(type) || type == SpeculativeType::DraftMtp;
    });
    return drafts ? 1 + settings.draftMax : 1;
}

bool usesNgramTypes(const SpeculativeSettings& settings) {
    return std::any_of(settings.types.begin(), settings.types.end(), [](SpeculativeType type) {
        return !needsDraftModel(type) && type != SpeculativeType::DraftMtp;
    });
}

std::vector<std::string> speculativeNotes(const SpeculativeSettings& settings) {
    std::vector<std::string> notes;
    for (const SpeculativeType type : settings.types) {
        if (needsDraftModel(type)) {
            notes.push_back(
                "--spec-type " + std::string(speculativeTypeName(type)) +
                " drafts with a second model (-md): its weights, KV and compute are not estimated");
        }
    }
    if (usesNgramTypes(settings)) {
        notes.push_back(
            "the ngram speculative types reserve more outputs per slot (their --spec-ngram-* sizes); "
            "the compute buffer may grow at several slots");
    }
    return notes;
}

} // namespace llamafit
