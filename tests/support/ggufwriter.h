#pragma once
// Writes a GgufFile (header, metadata, tensor table) to disk in GGUF v3 (or v2) layout,
// then either real tensor data or a sparse data region made by extending the file (a hole), so a
// realistic 30 GB model costs no disk. llama-server loads these files (mmap, --no-warmup).
// Test support only.

#include "core/gguf/gguffile.h"

#include <cstdint>
#include <functional>
#include <span>
#include <string>

namespace llamafit::test {

// Called once per tensor to fill its data (exactly tensor.bytes bytes); absent = sparse.
using TensorDataFiller = std::function<void(const GgufTensorInfo& tensor, std::span<std::uint8_t> data)>;

struct GgufWriteOptions {
    std::uint32_t version = 3;
    TensorDataFiller fill; // empty: data region is a hole (the file extended)
};

// Returns an empty string on success, else a message naming what failed.
std::string writeGguf(const std::string& path, const GgufFile& file, const GgufWriteOptions& options = {});

// The bytes of header + metadata + tensor table + padding (what precedes the data section).
std::vector<std::uint8_t> serializeGgufHeader(const GgufFile& file, std::uint32_t version = 3);

} // namespace llamafit::test
