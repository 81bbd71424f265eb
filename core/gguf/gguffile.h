#pragma once
// GgufFile: the header and tensor table of a GGUF model (all parts of a split model
// merged), never its tensor data. Produced by readGgufModel()/parseGguf(), consumed by
// the model interpreter and the built-in model cards. Plain value type; sizes in bytes.

#include "core/gguf/ggmltype.h"
#include "core/gguf/ggufvalue.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace llamafit {

struct GgufTensorInfo {
    std::string name;
    GgmlType type = GgmlType::F32;
    std::uint32_t dimensionCount = 1;
    std::array<std::uint64_t, 4> shape{1, 1, 1, 1}; // ne[0..3]; unused dimensions are 1
    std::uint64_t dataOffset = 0;                   // relative to the part's data section
    std::uint64_t bytes = 0;                        // ggml_nbytes: rowBytes(type, ne0) * ne1 * ne2 * ne3
    std::uint32_t splitIndex = 0;                   // which part of a split model holds it
    bool operator==(const GgufTensorInfo&) const = default;
};

struct GgufFile {
    std::uint32_t version = 3;
    std::uint64_t alignment = 32; // general.alignment of part 0
    std::uint64_t dataOffset = 0; // start of the data section in part 0
    std::uint64_t fileBytes = 0;  // sum of the sizes of all parts on disk
    std::uint32_t splitCount = 1;
    std::vector<std::string> partPaths; // empty for an in-memory file (model cards, tests)

    // Metadata of part 0 in file order (the split.* keys of later parts are checked, not kept).
    std::vector<std::pair<std::string, GgufValue>> metadata;
    std::vector<GgufTensorInfo> tensors;

    // Typed accessors. Integer accessors accept any integer GGUF type that holds the
    // value (a negative Int32 is not a uint); float accepts float and integer types.
    const GgufValue* find(std::string_view key) const;
    std::optional<std::uint64_t> getUint(std::string_view key) const;
    std::optional<std::int64_t> getInt(std::string_view key) const;
    std::optional<double> getFloat(std::string_view key) const;
    std::optional<bool> getBool(std::string_view key) const;
    std::optional<std::string> getString(std::string_view key) const;
    // An array of integers / bools (bools read as 0/1); nullopt if absent or not such an array.
    std::optional<std::vector<std::int64_t>> getIntArray(std::string_view key) const;
    std::optional<std::size_t> arrayLength(std::string_view key) const;

    const GgufTensorInfo* findTensor(std::string_view name) const;
    std::uint64_t tensorBytes() const; // sum of every tensor's bytes

    // Builds the lookup indexes after metadata/tensors were filled in (the reader and
    // in-memory builders call it; accessors work without it, just slower).
    void rebuildIndex();

  private:
    std::unordered_map<std::string, std::size_t> m_metadataIndex;
    std::unordered_map<std::string, std::size_t> m_tensorIndex;
};

} // namespace llamafit
