#pragma once
// RawGguf: a little-endian byte builder for hand-made GGUF files, most of them broken on
// purpose, for the GGUF reader's unit tests. It writes exactly what it is told: no counts
// are kept in step and nothing is validated. Test code only.

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

namespace llamafit::test {

class RawGguf {
  public:
    // "GGUF", version, tensor count, metadata count: the fixed 24-byte header.
    RawGguf& header(std::uint32_t version, std::uint64_t tensorCount, std::uint64_t kvCount) {
        return u32(0x46554747).u32(version).u64(tensorCount).u64(kvCount);
    }
    RawGguf& u8(std::uint8_t v) { return put(v); }
    RawGguf& u16(std::uint16_t v) { return put(v); }
    RawGguf& u32(std::uint32_t v) { return put(v); }
    RawGguf& u64(std::uint64_t v) { return put(v); }
    RawGguf& i32(std::int32_t v) { return put(v); }
    RawGguf& str(std::string_view s) {
        u64(s.size());
        m_bytes.insert(m_bytes.end(), s.begin(), s.end());
        return *this;
    }
    // A key with a uint32 value (type 4).
    RawGguf& kvU32(std::string_view key, std::uint32_t value) { return str(key).u32(4).u32(value); }
    RawGguf& kvString(std::string_view key, std::string_view value) { return str(key).u32(8).str(value); }
    // A tensor info: name, dims, type id, data offset.
    RawGguf& tensor(std::string_view name, const std::vector<std::uint64_t>& shape, std::uint32_t type,
                    std::uint64_t offset) {
        str(name).u32(static_cast<std::uint32_t>(shape.size()));
        for (auto ne : shape) {
            u64(ne);
        }
        return u32(type).u64(offset);
    }
    RawGguf& zeros(std::size_t n) {
        m_bytes.insert(m_bytes.end(), n, 0);
        return *this;
    }
    RawGguf& padTo(std::size_t alignment) {
        while (m_bytes.size() % alignment != 0) {
            m_bytes.push_back(0);
        }
        return *this;
    }

    std::size_t size() const { return m_bytes.size(); }
    const std::vector<std::uint8_t>& bytes() const { return m_bytes; }

  private:
    template <typename T> RawGguf& put(T value) {
        std::uint8_t raw[sizeof(T)];
        std::memcpy(raw, &value, sizeof(T));
        m_bytes.insert(m_bytes.end(), raw, raw + sizeof(T));
        return *this;
    }

    std::vector<std::uint8_t> m_bytes;
};

} // namespace llamafit::test
