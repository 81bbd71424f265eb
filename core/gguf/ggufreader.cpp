#include "core/gguf/ggufreader.h"

#include "core/common/utf8path.h"
#include "core/gguf/ggufparser.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <system_error>

namespace llamafit {
namespace {

Error withPath(const std::string& path, Error error) {
    error.message = path + ": " + error.message;
    return error;
}

// A window on the file's header: its bytes from base() to end(), read in order. It slides
// forward as the parser finishes items and grows only when one item needs more room, so a
// header of several MB is read once and held about one long array at a time. Not a
// std::vector, whose resize would zero megabytes that the read overwrites at once.
class HeaderWindow {
  public:
    std::span<const std::uint8_t> bytes() const { return {m_data.get(), m_size}; }
    std::uint64_t base() const { return m_base; }
    std::uint64_t end() const { return m_base + m_size; }

    // Keeps the bytes from `from` (base() <= from <= end()) and reads on from `in`, which
    // is positioned at end(), up to offset `to` (end() <= to <= `limit`).
    bool slideAndRead(std::ifstream& in, std::uint64_t from, std::uint64_t to, std::uint64_t limit) {
        const auto kept = static_cast<std::size_t>(end() - from);
        const auto wanted = static_cast<std::size_t>(to - from);
        if (wanted > m_capacity) {
            // Room to spare (never past `limit`) costs nothing until it is read into, and
            // spares a copy when the next item needs a little more.
            const auto capacity = static_cast<std::size_t>(
                std::min<std::uint64_t>(std::max(wanted, 2 * m_capacity), limit - from));
            auto grown = std::make_unique_for_overwrite<std::uint8_t[]>(capacity);
            if (kept > 0) {
                std::memcpy(grown.get(), m_data.get() + (from - m_base), kept);
            }
            m_data = std::move(grown);
            m_capacity = capacity;
        } else if (kept > 0 && from > m_base) {
            std::memmove(m_data.get(), m_data.get() + (from - m_base), kept);
        }
        m_base = from;
        m_size = kept;
        const auto missing = static_cast<std::streamsize>(wanted - kept);
        in.read(reinterpret_cast<char*>(m_data.get() + kept), missing);
        if (in.gcount() != missing) {
            return false;
        }
        m_size = wanted;
        return true;
    }

  private:
    std::unique_ptr<std::uint8_t[]> m_data;
    std::size_t m_capacity = 0;
    std::uint64_t m_base = 0;
    std::size_t m_size = 0;
};

} // namespace

Result<GgufFile> parseGguf(std::span<const std::uint8_t> header, std::uint64_t fileBytes,
                           const GgufReadLimits& limits) {
    return parseGgufPrefix(header, fileBytes, limits, nullptr);
}

Result<GgufFile> readGgufFile(const std::string& path, const GgufReadLimits& limits) {
    std::error_code ec;
    // The UTF-8 path as the file system spells it (on Windows: not through the ANSI code page).
    const std::filesystem::path file = pathFromUtf8(path);
    // A regular file only: a FIFO or /dev/zero has no size and would never end.
    if (!std::filesystem::is_regular_file(file, ec)) {
        return makeError("gguf.open-failed",
                         path + ": not a regular file" + (ec ? " (" + ec.message() + ")" : ""));
    }
    const std::uint64_t fileBytes = std::filesystem::file_size(file, ec);
    if (ec) {
        return makeError("gguf.open-failed", path + ": cannot read its size (" + ec.message() + ")");
    }
    std::ifstream in(file, std::ios::binary);
    if (!in) {
        return makeError("gguf.open-failed", path + ": cannot open it for reading");
    }

    // Read a first chunk and let the parser say how far its current item goes; then drop
    // what it has finished and read on, at least a chunk more, or to where it expects a long
    // array to end. The parser resumes at the key/value or tensor info it stopped in, so
    // nothing is parsed twice but the part of one item seen before a read. The data section
    // after the header is never read: at most the tail of the last chunk touches it.
    const std::uint64_t cap = std::min(fileBytes, limits.maxHeaderBytes);
    const std::uint64_t chunkBytes = std::max<std::uint64_t>(limits.initialReadBytes, 64);
    HeaderWindow window;
    GgufParser parser(fileBytes, limits);
    std::uint64_t resumeAt = 0;
    std::uint64_t wantBytes = std::min(cap, chunkBytes);
    while (true) {
        if (!window.slideAndRead(in, resumeAt, wantBytes, cap)) {
            return makeError("gguf.open-failed",
                             path + ": reading the first " + std::to_string(wantBytes) + " bytes failed");
        }
        auto result = parser.parse(window.bytes(), window.base());
        if (result.ok()) {
            result->partPaths = {path};
            return result;
        }
        // The cursor only asks for bytes below min(fileBytes, maxHeaderBytes), so each pass
        // reads strictly more and the loop ends.
        const std::optional<std::uint64_t> neededBytes = parser.neededBytes();
        if (!neededBytes || *neededBytes <= window.end() || *neededBytes > cap) {
            return withPath(path, result.error());
        }
        resumeAt = parser.resumeOffset();
        wantBytes = std::min(cap, std::max(*neededBytes, window.end() + chunkBytes));
    }
}

} // namespace llamafit
