// The built-in model cards: resources/cards/*.json compiled in (resources/builtincards.h),
// parsed once on first use. A card that fails to parse is left out of builtinModelCards()
// and reported by builtinModelCardErrors(); the unit tests require that list to be empty.
#include "core/model/modelspec.h"

#include "resources/builtincards.h"

namespace llamafit {
namespace {

struct ParsedCards {
    std::vector<ModelSpec> cards;
    std::vector<Error> errors;
};

ParsedCards parseCards() {
    ParsedCards parsed;
    for (const auto& embedded : resources::builtinCardTexts()) {
        auto spec = parseModelSpec(embedded.text);
        if (!spec) {
            parsed.errors.push_back(
                makeError(spec.error().code, std::string(embedded.fileName) + ": " + spec.error().message));
            continue;
        }
        parsed.cards.push_back(std::move(*spec));
    }
    return parsed;
}

// Immutable after the first call (a function-local static is initialised thread-safely).
const ParsedCards& parsedCards() {
    static const ParsedCards parsed = parseCards();
    return parsed;
}

} // namespace

const std::vector<ModelSpec>& builtinModelCards() {
    return parsedCards().cards;
}

const std::vector<Error>& builtinModelCardErrors() {
    return parsedCards().errors;
}

Result<ModelSpec> findBuiltinModelCard(std::string_view id) {
    for (const auto& card : builtinModelCards()) {
        if (card.id == id) {
            return card;
        }
    }
    std::string known;
    for (const auto& card : builtinModelCards()) {
        known += (known.empty() ? "" : ", ") + card.id;
    }
    return makeError("spec.unknown-card",
                     "no built-in model card \"" + std::string(id) + "\" (known: " + known + ")");
}

std::string_view defaultModelCardId() {
    return "qwen3.5-35b-a3b-q6_k";
}

} // namespace llamafit
