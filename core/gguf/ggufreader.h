#pragma once
// Reads the header and tensor table of GGUF v2/v3 files, never tensor data, so a
// 30 GB model parses in milliseconds. Every count and length is checked against the
// bytes left before anything is allocated; each failure is a named Error (codes below),
// never a crash or a hang. Used by the CLI, the GUI's library scan and the tests.
//
// Error codes (Error::code):
//   gguf.open-failed              file cannot be opened or read
//   gguf.bad-magic                first four bytes are not "GGUF"
//   gguf.unsupported-version      version other than 2 or 3 (1 is obsolete)
//   gguf.truncated                a field runs past the end of the file
//   gguf.absurd-count             tensor/kv/array count larger than the remaining bytes allow
//   gguf.string-too-long          string length larger than the remaining bytes
//   gguf.unknown-value-type       metadata value type id outside the table
//   gguf.nesting-too-deep         arrays nested deeper than the reader allows
//   gguf.duplicate-key            the same metadata key twice
//   gguf.bad-alignment            general.alignment zero, not a power of two, or wrong type
//   gguf.unknown-tensor-type      tensor type id outside the ggml table
//   gguf.removed-tensor-type      tensor type id that ggml removed
//   gguf.bad-tensor-shape         dimension count > 4, zero/overflowing dimension, row not divisible by block
//   gguf.duplicate-tensor         the same tensor name twice
//   gguf.misaligned-tensor        tensor data offset not a multiple of the alignment
//   gguf.tensor-out-of-bounds     tensor data past the end of the file
//   gguf.split-part-missing       a part of a split model is not on disk
//   gguf.split-mismatch           split.* keys disagree between parts / with the file names
//   gguf.header-too-large         the header runs past GgufReadLimits::maxHeaderBytes
//   gguf.empty-key                a metadata key of length 0 (llama.cpp rejects it)
//   gguf.tensor-name-too-long     a tensor name of 64 bytes or more (ggml's GGML_MAX_NAME)
//   gguf.internal                 the reader broke one of its own rules (a bug; never expected)

#include "core/common/result.h"
#include "core/gguf/gguffile.h"

#include <cstdint>
#include <span>
#include <string>

namespace llamafit {

struct GgufReadLimits {
    std::uint32_t maxArrayNesting = 8; // an array of arrays is nesting 2
    // Real headers are a few MB (a 256k-token vocabulary with merges is ~10 MB); the
    // limits keep a hostile file from making the reader hold gigabytes.
    std::uint64_t maxHeaderBytes = 128 * 1024 * 1024;
    std::uint64_t maxMetadataValues = 8 * 1024 * 1024; // scalars + array elements, all keys together
    // readGgufFile's first read, and the least each further read adds (more when the parser
    // knows that the key/value it stopped in goes on further).
    std::uint64_t initialReadBytes = 1024 * 1024;
};

// Parses one GGUF part held in memory. `fileBytes` is the true size of the file on disk
// (data bounds are checked against it); `header` may hold only a prefix of the file.
Result<GgufFile> parseGguf(std::span<const std::uint8_t> header, std::uint64_t fileBytes,
                           const GgufReadLimits& limits = {});

// Reads one file (only the bytes the header needs).
Result<GgufFile> readGgufFile(const std::string& path, const GgufReadLimits& limits = {});

// Reads a model: one file, or every part of a split model ("name-00001-of-00003.gguf",
// given any part's path), merged into one GgufFile whose tensors carry splitIndex.
Result<GgufFile> readGgufModel(const std::string& path, const GgufReadLimits& limits = {});

} // namespace llamafit
