#pragma once
// ModelSpec: a metadata-only description of a model (its GGUF keys and tensor table,
// written compactly as JSON with per-layer tensor templates), so a model can be sized
// without its file. Built-in model cards (resources/cards/*.json) and the realistic test
// shapes (tests/data/shapes/*.json) use this one format; parsing expands a spec into
// the same GgufFile the reader produces (ModelSpec::file), so cards go through
// interpretModel() like files.
//
// Error codes: spec.bad-json (not JSON / wrong field types / unknown field), spec.missing-field,
// spec.bad-tensor (unknown type name, bad shape, bad layer selector, duplicate name, token_embd
// rows != vocabulary_size), spec.bad-metadata (unknown value type, value that does not fit its
// type, duplicate key, bad per-layer array), spec.unknown-card.
// The JSON format itself is described at the top of modelspec.cpp.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"

#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct ModelSpec {
    std::string id;          // lower-case id scripts use: "qwen3.5-35b-a3b-q6_k"
    std::string displayName; // "Qwen3.5-35B-A3B Q6_K"
    std::string source;      // where the values come from (model card / config.json / file listing)
    std::string notes;       // e.g. how the quantisation mix was chosen
    // Where the model is on Hugging Face (a built-in card's one-click download): the repo and the
    // quant as the Hub labels it ("Q6_K"; empty: llama.cpp's default pick). Empty repo: not known.
    std::string hubRepo;
    std::string hubQuant;
    // Tokenizer size (tokens are generated when the spec is written as a file).
    std::uint32_t vocabularySize = 0;
    GgufFile file; // metadata + tensor table (no data), offsets laid out with alignment 32
};

Result<ModelSpec> parseModelSpec(std::string_view json);

// The built-in cards, compiled into the binary from resources/cards/*.json.
const std::vector<ModelSpec>& builtinModelCards();
Result<ModelSpec> findBuiltinModelCard(std::string_view id);
// Cards that failed to parse (a build mistake; empty in a good build, the tests check it).
const std::vector<Error>& builtinModelCardErrors();
// The id of the card the app starts on (Qwen3.5-35B-A3B Q6_K).
std::string_view defaultModelCardId();

} // namespace llamafit
