#pragma once
// ArchKeys: typed reads of the "<arch>.<suffix>" metadata keys of one GGUF file, with the
// scalar-or-per-layer-array rule of llama.cpp's llama_model_loader::get_key_or_arr.
// Internal to core/model (the interpreter and its rule files). Values are counts and
// dimensions exactly as stored; nothing is converted to bytes.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

class ArchKeys {
  public:
    ArchKeys(const GgufFile& file, std::string architecture);

    std::string key(std::string_view suffix) const; // "qwen35moe.block_count"
    bool has(std::string_view suffix) const;
    bool isArray(std::string_view suffix) const;

    // A scalar unsigned value; nullopt if absent or not a non-negative integer scalar.
    std::optional<std::uint64_t> uint(std::string_view suffix) const;
    // uint() checked to fit 32 bits; absent -> nullopt, present but unusable -> model.bad-value.
    Result<std::optional<std::uint32_t>> uint32(std::string_view suffix) const;
    // uint32() where absence is an error (model.missing-key), like a required llama.cpp get_key.
    Result<std::uint32_t> requiredUint32(std::string_view suffix, std::string_view why) const;

    // get_key_or_arr: a scalar fills every layer, an array must have exactly `layerCount`
    // entries (model.bad-value otherwise). Absent -> nullopt.
    Result<std::optional<std::vector<std::uint32_t>>> perLayer(std::string_view suffix,
                                                               std::uint32_t layerCount) const;

    const GgufFile& file() const { return m_file; }
    const std::string& architecture() const { return m_architecture; }

  private:
    const GgufFile& m_file;
    std::string m_architecture;
};

} // namespace llamafit
