#pragma once
// Internal pieces of the ModelSpec parser (modelspec*.cpp only; not part of the core's
// interface): the typed metadata values and the per-layer selectors that tensor templates
// and per-layer metadata arrays share. Layer indexes are block indexes (0-based).

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/gguf/ggufvalue.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit::spec {

// `object[field]` as a string: spec.missing-field when absent, spec.bad-json when not a string.
Result<std::string> requiredString(const nlohmann::json& object, const char* field, const std::string& where);
// spec.bad-json naming the first field of `object` outside `allowed` ("comment" is always allowed).
std::optional<Error> checkFields(const nlohmann::json& object,
                                 std::initializer_list<std::string_view> allowed, const std::string& where);

// "all" | [i, j, ...] | {"except": [i, j, ...]} | {"every": n, "offset": k} | {"except_every": n, "offset":
// k} |
// {"from": a, "to": b} (a inclusive, b exclusive). `where` names the field for messages;
// failures carry `errorCode` (spec.bad-tensor for tensor templates, spec.bad-metadata for
// per-layer metadata arrays).
Result<std::vector<bool>> parseLayerSelector(const nlohmann::json& selector, std::uint32_t blockCount,
                                             const std::string& where, const std::string& errorCode);

// One metadata entry {"key", "type", "value"} or {"key", "type": "<t>[]", "per_layer": ...}.
// Type names: u8 i8 u16 i16 u32 i32 u64 i64 f32 f64 bool string, and "<t>[]" for arrays.
// Error code: spec.bad-metadata.
Result<GgufValue> parseMetadataValue(const nlohmann::json& entry, std::uint32_t blockCount,
                                     const std::string& where);

// The "tensors" list: entries parsed, templates expanded (runs of consecutive templates block
// by block), names checked unique, data offsets padded to `alignment`.
// Error codes: spec.bad-json, spec.missing-field, spec.bad-tensor.
Result<std::vector<GgufTensorInfo>> parseTensors(const nlohmann::json& list, std::uint32_t blockCount,
                                                 std::uint64_t alignment, const std::string& where);

} // namespace llamafit::spec
