#pragma once
// GgufBuilder: builds a GgufFile in memory (metadata + tensor table, offsets aligned like
// gguf.cpp lays them out), for unit tests and for the GGUF writer that makes the real
// files llama-server loads. Test support only; not part of the product.

#include "core/gguf/gguffile.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

namespace llamafit::test {

class GgufBuilder {
  public:
    explicit GgufBuilder(std::string architecture = {});

    GgufBuilder& setUint32(const std::string& key, std::uint32_t value);
    GgufBuilder& setUint64(const std::string& key, std::uint64_t value);
    GgufBuilder& setInt32(const std::string& key, std::int32_t value);
    GgufBuilder& setFloat32(const std::string& key, float value);
    GgufBuilder& setBool(const std::string& key, bool value);
    GgufBuilder& setString(const std::string& key, const std::string& value);
    GgufBuilder& setUint32Array(const std::string& key, const std::vector<std::uint32_t>& values);
    GgufBuilder& setInt32Array(const std::string& key, const std::vector<std::int32_t>& values);
    GgufBuilder& setBoolArray(const std::string& key, const std::vector<bool>& values);
    GgufBuilder& setFloat32Array(const std::string& key, const std::vector<float>& values);
    GgufBuilder& setStringArray(const std::string& key, const std::vector<std::string>& values);
    GgufBuilder& set(const std::string& key, GgufValue value); // replaces an existing key

    // Adds a tensor with shape ne[0..n); bytes and the aligned data offset are computed.
    GgufBuilder& addTensor(const std::string& name, GgmlType type,
                           std::initializer_list<std::uint64_t> shape);
    GgufBuilder& addTensor(const std::string& name, GgmlType type, const std::vector<std::uint64_t>& shape);

    // "<arch>.<suffix>" helper: key("block_count") -> "llama.block_count".
    std::string key(const std::string& suffix) const { return m_architecture + "." + suffix; }

    const GgufFile& file() const { return m_file; }
    GgufFile build() const; // a copy with indexes built

  private:
    std::string m_architecture;
    GgufFile m_file;
};

} // namespace llamafit::test
