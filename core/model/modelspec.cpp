// parseModelSpec: the JSON model-spec format (modelspec.h) -> ModelSpec with a GgufFile
// laid out the way llama.cpp's GGUF writer lays out a file (ggml/src/gguf.cpp): tensors in
// the listed order, each data offset padded to general.alignment (32 when absent).
//
// Format (every field required unless marked optional):
//   { "id": "...", "name": "...", "source": "...", "notes": "..." (optional),
//     "huggingface": {"repo": "org/name", "quant": "Q6_K"} (optional; quant optional),
//     "vocabulary_size": 248320,
//     "metadata": [ {"key": "general.architecture", "type": "string", "value": "qwen35moe"},
//                   {"key": "qwen35moe.block_count", "type": "u32", "value": 40},
//                   {"key": "x.head_count_kv", "type": "i32[]", "value": [0, 8]},
//                   {"key": "x.head_count_kv", "type": "u32[]",
//                    "per_layer": {"default": 0, "set": [{"layers": {"every": 4, "offset": 3}, "value": 2}]}}
//                    ],
//     "tensors": [ {"name": "token_embd.weight", "type": "q6_K", "shape": [2048, 248320]},
//                  {"name": "blk.{i}.attn_q.weight", "type": "q8_0", "shape": [2048, 8192],
//                   "layers": {"every": 4, "offset": 3}} ] }
// "{i}" names a per-layer template; "layers" (optional, default "all") picks its blocks:
// "all", [0, 5], {"except": [0, 5]}, {"every": 4, "offset": 3}, {"except_every": 4, "offset": 3},
// {"from": 1, "to": 27} (to exclusive). "per_layer" metadata arrays use the same selectors. A run
// of consecutive templates expands block by block (blk.0.*, blk.1.*, ...) like real files.
// Entries may carry a "comment" string, which is ignored.
#include "core/model/modelspec.h"

#include "core/common/units.h"
#include "core/hub/hubresponses.h"
#include "core/model/modelspec_internal.h"

#include <nlohmann/json.hpp>

#include <set>

namespace llamafit {
namespace {

using nlohmann::json;

// An entry's "key" when it is a string, else "" (json::value would throw on another type;
// the per-entry checks below name that error).
std::string keyOf(const json& entry) {
    const auto key = entry.find("key");
    return key != entry.end() && key->is_string() ? key->get<std::string>() : std::string();
}

Result<std::pair<std::string, std::uint32_t>> findArchitecture(const json& metadata) {
    std::string architecture;
    for (const json& entry : metadata) {
        if (entry.is_object() && keyOf(entry) == "general.architecture" && entry.contains("value") &&
            entry.at("value").is_string()) {
            architecture = entry.at("value").get<std::string>();
        }
    }
    if (architecture.empty()) {
        return makeError("spec.missing-field", "metadata: missing the string key general.architecture");
    }
    const std::string blockKey = architecture + ".block_count";
    for (const json& entry : metadata) {
        if (entry.is_object() && keyOf(entry) == blockKey && entry.contains("value")) {
            const json& value = entry.at("value");
            if (!value.is_number_unsigned() || value.get<std::uint64_t>() == 0 ||
                value.get<std::uint64_t>() > 4096) {
                return makeError("spec.bad-metadata",
                                 "metadata: " + blockKey + " must be an integer in 1..4096");
            }
            return std::make_pair(architecture, value.get<std::uint32_t>());
        }
    }
    return makeError("spec.missing-field", "metadata: missing " + blockKey);
}

} // namespace

Result<ModelSpec> parseModelSpec(std::string_view text) {
    const json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
    if (root.is_discarded()) {
        return makeError("spec.bad-json", "not valid JSON");
    }
    if (!root.is_object()) {
        return makeError("spec.bad-json", "a model spec must be a JSON object");
    }
    if (auto bad = spec::checkFields(
            root, {"id", "name", "source", "notes", "huggingface", "vocabulary_size", "metadata", "tensors"},
            "spec")) {
        return *bad;
    }
    ModelSpec spec;
    for (auto [field, target] : {std::pair{"id", &spec.id}, std::pair{"name", &spec.displayName},
                                 std::pair{"source", &spec.source}}) {
        auto value = spec::requiredString(root, field, "spec");
        if (!value) {
            return value.error();
        }
        *target = std::move(*value);
    }
    const std::string where = "spec \"" + spec.id + "\"";
    if (root.contains("notes")) {
        auto notes = spec::requiredString(root, "notes", where);
        if (!notes) {
            return notes.error();
        }
        spec.notes = std::move(*notes);
    }
    if (root.contains("huggingface")) {
        const json& hub = root.at("huggingface");
        if (!hub.is_object() || !hub.contains("repo") || !hub.at("repo").is_string() ||
            (hub.contains("quant") && !hub.at("quant").is_string())) {
            return makeError("spec.bad-json",
                             where +
                                 ": \"huggingface\" must be {\"repo\": \"org/name\", \"quant\": \"Q4_K_M\"}");
        }
        if (auto bad = spec::checkFields(hub, {"repo", "quant"}, where + " huggingface")) {
            return *bad;
        }
        spec.hubRepo = hub.at("repo").get<std::string>();
        spec.hubQuant = hub.value("quant", std::string{});
        if (!isValidRepoId(spec.hubRepo)) {
            return makeError("spec.bad-json",
                             where + ": \"" + spec.hubRepo + "\" is not a Hugging Face repo id");
        }
    }
    if (!root.contains("vocabulary_size")) {
        return makeError("spec.missing-field", where + ": missing \"vocabulary_size\"");
    }
    const json& vocabulary = root.at("vocabulary_size");
    if (!vocabulary.is_number_unsigned() || vocabulary.get<std::uint64_t>() == 0 ||
        vocabulary.get<std::uint64_t>() > std::numeric_limits<std::uint32_t>::max()) {
        return makeError("spec.bad-json", where + ": \"vocabulary_size\" must be a positive 32-bit integer");
    }
    spec.vocabularySize = vocabulary.get<std::uint32_t>();
    for (const char* field : {"metadata", "tensors"}) {
        if (!root.contains(field)) {
            return makeError("spec.missing-field", where + ": missing \"" + field + "\"");
        }
        if (!root.at(field).is_array()) {
            return makeError("spec.bad-json", where + ": \"" + field + "\" must be an array");
        }
    }

    const json& metadata = root.at("metadata");
    auto architecture = findArchitecture(metadata);
    if (!architecture) {
        return makeError(architecture.error().code, where + ": " + architecture.error().message);
    }
    const std::uint32_t blockCount = architecture->second;
    std::set<std::string> keys;
    for (std::size_t n = 0; n < metadata.size(); ++n) {
        const json& entry = metadata[n];
        std::string at = where + " metadata[" + std::to_string(n) + "]";
        if (!entry.is_object()) {
            return makeError("spec.bad-json", at + ": must be an object");
        }
        if (auto bad = spec::checkFields(entry, {"key", "type", "value", "per_layer"}, at)) {
            return *bad;
        }
        auto key = spec::requiredString(entry, "key", at);
        if (!key) {
            return key.error();
        }
        at += " (\"" + *key + "\")";
        if (!keys.insert(*key).second) {
            return makeError("spec.bad-metadata", at + ": key listed twice");
        }
        auto value = spec::parseMetadataValue(entry, blockCount, at);
        if (!value) {
            return value.error();
        }
        spec.file.metadata.emplace_back(std::move(*key), std::move(*value));
    }
    spec.file.rebuildIndex();
    // gguf.cpp: general.alignment must be a power of two; GGUF_DEFAULT_ALIGNMENT is 32.
    spec.file.alignment = spec.file.getUint("general.alignment").value_or(32);
    if (spec.file.alignment == 0 || (spec.file.alignment & (spec.file.alignment - 1)) != 0) {
        return makeError("spec.bad-metadata", where + ": general.alignment must be a power of two");
    }

    auto tensors = spec::parseTensors(root.at("tensors"), blockCount, spec.file.alignment, where);
    if (!tensors) {
        return tensors.error();
    }
    spec.file.tensors = std::move(*tensors);
    spec.file.rebuildIndex();
    // llama.cpp creates token_embd as {n_embd, n_vocab} with n_vocab from the tokenizer, so a
    // mismatch would fail to load ("wrong shape"); catch it in the spec.
    if (const auto* embedding = spec.file.findTensor("token_embd.weight");
        embedding && embedding->shape[1] != spec.vocabularySize) {
        return makeError("spec.bad-tensor",
                         where + ": token_embd.weight has " + std::to_string(embedding->shape[1]) +
                             " rows but vocabulary_size is " + std::to_string(spec.vocabularySize));
    }
    std::uint64_t dataBytes = 0;
    for (const auto& tensor : spec.file.tensors) {
        dataBytes = std::max(dataBytes, tensor.dataOffset + tensor.bytes);
    }
    // A spec has no header: fileBytes is the size of the data section alone.
    spec.file.fileBytes = padTo(dataBytes, spec.file.alignment);
    return spec;
}

} // namespace llamafit