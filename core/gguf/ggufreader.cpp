#include "core/gguf/ggufreader.h"

#include "core/gguf/ggufparser.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <system_error>
#include <vector>

namespace llamafit {
namespace {

Error withPath(const std::string& path, Error error) {
    error.message = path + ": " + error.message;
    return error;
}

// Grows `buffer` to `wantBytes` by reading the next bytes of the file.
bool readUpTo(std::ifstream& in, std::vector<std::uint8_t>& buffer, std::uint64_t wantBytes) {
    const std::size_t have = buffer.size();
    const auto want = static_cast<std::size_t>(wantBytes);
    buffer.resize(want);
    in.clear();
    in.seekg(static_cast<std::streamoff>(have));
    in.read(reinterpret_cast<char*>(buffer.data() + have), static_cast<std::streamsize>(want - have));
    return in.gcount() == static_cast<std::streamsize>(want - have);
}

} // namespace

Result<GgufFile> parseGguf(std::span<const std::uint8_t> header, std::uint64_t fileBytes,
                           const GgufReadLimits& limits) {
    return parseGgufPrefix(header, fileBytes, limits, nullptr);
}

Result<GgufFile> readGgufFile(const std::string& path, const GgufReadLimits& limits) {
    std::error_code ec;
    // A regular file only: a FIFO or /dev/zero has no size and would never end.
    if (!std::filesystem::is_regular_file(path, ec)) {
        return makeError("gguf.open-failed",
                         path + ": not a regular file" + (ec ? " (" + ec.message() + ")" : ""));
    }
    const std::uint64_t fileBytes = std::filesystem::file_size(path, ec);
    if (ec) {
        return makeError("gguf.open-failed", path + ": cannot read its size (" + ec.message() + ")");
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        return makeError("gguf.open-failed", path + ": cannot open it for reading");
    }

    // Read a first chunk and let the parser say how far the header goes; grow by at least
    // doubling so a 10 MB vocabulary costs a handful of passes. The data section after the
    // header is never read as a whole: at most the tail of the last chunk touches it.
    const std::uint64_t cap = std::min(fileBytes, limits.maxHeaderBytes);
    std::uint64_t wantBytes = std::min(cap, std::max<std::uint64_t>(limits.initialReadBytes, 64));
    std::vector<std::uint8_t> buffer;
    while (true) {
        if (!readUpTo(in, buffer, wantBytes)) {
            return makeError("gguf.open-failed",
                             path + ": reading the first " + std::to_string(wantBytes) + " bytes failed");
        }
        std::optional<std::uint64_t> neededBytes;
        auto result = parseGgufPrefix(buffer, fileBytes, limits, &neededBytes);
        if (result.ok()) {
            result->partPaths = {path};
            return result;
        }
        // The cursor only asks for bytes below min(fileBytes, maxHeaderBytes), so each pass
        // reads strictly more and the loop ends.
        if (!neededBytes || *neededBytes <= buffer.size() || *neededBytes > cap) {
            return withPath(path, result.error());
        }
        wantBytes = std::min(cap, std::max<std::uint64_t>(*neededBytes, 2 * buffer.size()));
    }
}

} // namespace llamafit
