#include "tests/support/ggufwriter.h"

#include "core/common/units.h"
#include "core/common/utf8path.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

namespace llamafit::test {
namespace {

class ByteSink {
  public:
    template <typename T> void put(T value) {
        // GGUF is little-endian, like every host we build for. resize + memcpy rather than
        // insert, which g++ 12 -O3 flags as overflowing an empty vector (-Wstringop-overflow).
        const std::size_t at = m_bytes.size();
        m_bytes.resize(at + sizeof(T));
        std::memcpy(m_bytes.data() + at, &value, sizeof(T));
    }
    void putString(std::string_view s) {
        put<std::uint64_t>(s.size());
        m_bytes.insert(m_bytes.end(), s.begin(), s.end());
    }
    void padTo(std::uint64_t alignment) {
        while (m_bytes.size() % alignment != 0) {
            m_bytes.push_back(0);
        }
    }
    std::vector<std::uint8_t>& bytes() { return m_bytes; }

  private:
    std::vector<std::uint8_t> m_bytes;
};

void putArray(ByteSink& out, const GgufArray& array);

void putScalar(ByteSink& out, const GgufValue& value) {
    switch (value.type) {
    case GgufValueType::Uint8:
        out.put<std::uint8_t>(static_cast<std::uint8_t>(std::get<std::uint64_t>(value.data)));
        break;
    case GgufValueType::Int8:
        out.put<std::int8_t>(static_cast<std::int8_t>(std::get<std::int64_t>(value.data)));
        break;
    case GgufValueType::Uint16:
        out.put<std::uint16_t>(static_cast<std::uint16_t>(std::get<std::uint64_t>(value.data)));
        break;
    case GgufValueType::Int16:
        out.put<std::int16_t>(static_cast<std::int16_t>(std::get<std::int64_t>(value.data)));
        break;
    case GgufValueType::Uint32:
        out.put<std::uint32_t>(static_cast<std::uint32_t>(std::get<std::uint64_t>(value.data)));
        break;
    case GgufValueType::Int32:
        out.put<std::int32_t>(static_cast<std::int32_t>(std::get<std::int64_t>(value.data)));
        break;
    case GgufValueType::Float32:
        out.put<float>(static_cast<float>(std::get<double>(value.data)));
        break;
    case GgufValueType::Bool:
        out.put<std::uint8_t>(std::get<bool>(value.data) ? 1 : 0);
        break;
    case GgufValueType::String:
        out.putString(std::get<std::string>(value.data));
        break;
    case GgufValueType::Uint64:
        out.put<std::uint64_t>(std::get<std::uint64_t>(value.data));
        break;
    case GgufValueType::Int64:
        out.put<std::int64_t>(std::get<std::int64_t>(value.data));
        break;
    case GgufValueType::Float64:
        out.put<double>(std::get<double>(value.data));
        break;
    case GgufValueType::Array:
        putArray(out, *value.array());
        break;
    }
}

void putArray(ByteSink& out, const GgufArray& array) {
    out.put<std::uint32_t>(static_cast<std::uint32_t>(array.elementType()));
    out.put<std::uint64_t>(array.size());
    for (std::size_t i = 0; i < array.size(); ++i) {
        switch (array.elementType()) {
        case GgufValueType::String:
            out.putString(array.stringAt(i));
            break;
        case GgufValueType::Array:
            putArray(out, array.arrayAt(i));
            break;
        default:
            putScalar(out, array.elementAt(i));
            break;
        }
    }
}

} // namespace

std::vector<std::uint8_t> serializeGgufHeader(const GgufFile& file, std::uint32_t version) {
    ByteSink out;
    out.put<std::uint32_t>(0x46554747); // "GGUF"
    out.put<std::uint32_t>(version);
    out.put<std::uint64_t>(file.tensors.size());
    out.put<std::uint64_t>(file.metadata.size());
    for (const auto& [key, value] : file.metadata) {
        out.putString(key);
        out.put<std::uint32_t>(static_cast<std::uint32_t>(value.type));
        putScalar(out, value);
    }
    for (const auto& tensor : file.tensors) {
        out.putString(tensor.name);
        out.put<std::uint32_t>(tensor.dimensionCount);
        for (std::uint32_t d = 0; d < tensor.dimensionCount; ++d) {
            out.put<std::uint64_t>(tensor.shape[d]);
        }
        out.put<std::uint32_t>(static_cast<std::uint32_t>(tensor.type));
        out.put<std::uint64_t>(tensor.dataOffset);
    }
    std::uint64_t alignment = file.alignment;
    if (const auto a = file.getUint("general.alignment")) {
        alignment = *a;
    }
    out.padTo(alignment == 0 ? 32 : alignment);
    return std::move(out.bytes());
}

std::string writeGguf(const std::string& path, const GgufFile& file, const GgufWriteOptions& options) {
    const auto header = serializeGgufHeader(file, options.version);
    std::uint64_t dataBytes = 0;
    for (const auto& tensor : file.tensors) {
        dataBytes = std::max(dataBytes, tensor.dataOffset + tensor.bytes);
    }
    std::uint64_t alignment = file.getUint("general.alignment").value_or(32);
    dataBytes = padTo(dataBytes, alignment);

    // Standard streams and std::filesystem, not POSIX open/pwrite/ftruncate, so the same
    // writer serves the Windows build of the unit tests (scripts/test-windows-core.sh).
    const std::filesystem::path filePath = pathFromUtf8(path);
    std::ofstream out(filePath, std::ios::binary | std::ios::trunc);
    if (!out) {
        return "cannot create " + path;
    }
    out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
    if (!out) {
        return "write failed for " + path;
    }
    // The end of the last byte written so far: the data region is extended past it below.
    std::uint64_t writtenEnd = header.size();
    if (options.fill) {
        std::vector<std::uint8_t> buffer;
        for (const auto& tensor : file.tensors) {
            buffer.assign(tensor.bytes, 0);
            options.fill(tensor, buffer);
            out.seekp(static_cast<std::streamoff>(header.size() + tensor.dataOffset));
            out.write(reinterpret_cast<const char*>(buffer.data()),
                      static_cast<std::streamsize>(buffer.size()));
            if (!out) {
                return "write failed for " + path;
            }
            writtenEnd =
                std::max<std::uint64_t>(writtenEnd, header.size() + tensor.dataOffset + tensor.bytes);
        }
    }
    // The rest of the data region becomes a hole: one zero byte written at its last position.
    // Not std::filesystem::resize_file: on Windows it is mingw-w64's ftruncate64, which refuses
    // (EFBIG, "File too large") to extend a file past the volume's free space even where the
    // file would be sparse, as under Wine on a CI disk smaller than a 35B model's GGUF.
    const std::uint64_t fileBytes = header.size() + dataBytes;
    if (writtenEnd < fileBytes) {
        out.seekp(static_cast<std::streamoff>(fileBytes - 1));
        out.put('\0');
        if (!out) {
            return "cannot extend " + path + " to its data size";
        }
    }
    out.close();
    if (!out) {
        return "write failed for " + path;
    }
    return {};
}

} // namespace llamafit::test
