#pragma once
// The GGUF v2/v3 header parser behind parseGguf() and readGgufFile(): magic, version,
// metadata (every value type, nested arrays), tensor table, alignment and data bounds.
// Internal to core/gguf; everything else calls the functions in ggufreader.h.
// Sizes and offsets are in bytes.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/gguf/ggufreader.h"

#include <cstdint>
#include <optional>
#include <span>

namespace llamafit {

// Parses one GGUF part from `bytes`, a prefix of a file of `fileBytes` bytes. When the
// header runs past the prefix but not past the file, the error is "gguf.truncated" and
// *neededBytes (if given) is set to how many bytes from the start the parser asked for,
// so the caller can read more and call again.
Result<GgufFile> parseGgufPrefix(std::span<const std::uint8_t> bytes, std::uint64_t fileBytes,
                                 const GgufReadLimits& limits, std::optional<std::uint64_t>* neededBytes);

} // namespace llamafit
