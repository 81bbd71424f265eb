#pragma once
// Model files for tests: turns a ModelSpec (a built-in card or a realistic shape from
// tests/data/shapes/*.json) into a GGUF file llama-server loads — the spec's metadata and
// tensor table plus a generated SPM tokenizer of vocabularySize tokens — written sparse
// (data region is a hole) or with small random weights. Also the tiny real-weight llama
// that llama-server can generate text with. Used by the unit tests, the integration rig and
// llamafit-make-gguf. Test support only; sizes in bytes.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/model/modelspec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit::test {

struct ModelFileOptions {
    // Retype every weight llama.cpp's quantizer would quantize (src/llama-quant.cpp
    // tensor_allows_quantization: 2-D/3-D "*weight" tensors except norms, routers, conv1d and
    // a few small ones) to this type; rows that do not divide into its blocks keep their type.
    std::optional<GgmlType> weightType;
    // Fill tensors with small random values (fixed seed; f32/f16 only, other types zero).
    // false: the data region is a hole (sparse file).
    bool realWeights = false;
    std::uint64_t seed = 20240611;
    std::uint32_t version = 3;
};

// Folder of the realistic shapes (tests/data/shapes in the source tree).
std::string shapesDirectory();
// Every tests/data/shapes/*.json, sorted by file name.
std::vector<std::string> shapeFiles();
// Reads and parses one spec file; read failures are "test.read-failed".
Result<ModelSpec> loadModelSpecFile(const std::string& path);
// A shape by file stem: loadShape("qwen35moe") reads tests/data/shapes/qwen35moe.json.
Result<ModelSpec> loadShape(std::string_view name);

// Data offsets of every tensor again, in table order, each padded to the file's alignment
// (after tensors were retyped, resized or dropped).
void layOutOffsets(GgufFile& file);

// The spec's file with weightType applied (bytes and offsets recomputed).
GgufFile retypeWeights(const GgufFile& file, GgmlType weightType);

// The GgufFile that writeSpecAsGguf writes: spec metadata (retyped if asked), then the
// tokenizer keys (tokenizer.ggml.model "llama": <unk> <s> </s>, the 256 byte tokens
// <0x00>..<0xFF>, then filler tokens up to vocabularySize; scores; token types; bos/eos/unk).
// Fails with "test.bad-vocabulary" when vocabularySize < 259 (the byte tokens do not fit).
Result<GgufFile> ggufFileForSpec(const ModelSpec& spec, const ModelFileOptions& options = {});

// Writes ggufFileForSpec(spec) to path; returns what was written ("test.write-failed" on I/O errors).
Result<GgufFile> writeSpecAsGguf(const ModelSpec& spec, const std::string& path,
                                 const ModelFileOptions& options = {});

// A tiny llama (n_embd 64, 2 layers, 4 heads, 2 KV heads, n_ff 128, 288 byte-level tokens,
// f32) — small enough to hold real random weights, so llama-server can generate from it.
ModelSpec tinyModelSpec();
Result<GgufFile> writeTinyModel(const std::string& path);

} // namespace llamafit::test
