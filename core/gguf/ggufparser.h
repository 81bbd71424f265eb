#pragma once
// The GGUF v2/v3 header parser behind parseGguf() and readGgufFile(): magic, version,
// metadata (every value type, nested arrays), tensor table, alignment and data bounds.
// Internal to core/gguf; everything else calls the functions in ggufreader.h.
// Sizes and offsets are in bytes.

#include "core/common/result.h"
#include "core/gguf/bytecursor.h"
#include "core/gguf/gguffile.h"
#include "core/gguf/ggufreader.h"
#include "core/gguf/ggufvaluereader.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <unordered_set>

namespace llamafit {

// Parses one GGUF part of `fileBytes` bytes from its header read piece by piece. When the
// header runs past the bytes given but not past the file, parse() fails with
// "gguf.truncated", neededBytes() says up to which file offset the parser asked for bytes
// and resumeOffset() where the key/value or tensor info it stopped in starts. The caller
// reads on and calls parse() again with the file's bytes from resumeOffset() (or earlier)
// to neededBytes() (or further); the parser goes on from there, so nothing before is
// parsed or held again. Call parse() again only after such a failure; any other result is
// final.
class GgufParser {
  public:
    GgufParser(std::uint64_t fileBytes, const GgufReadLimits& limits);
    ~GgufParser();
    // m_values holds references to m_in and m_limits.
    GgufParser(const GgufParser&) = delete;
    GgufParser& operator=(const GgufParser&) = delete;

    // `bytes` holds the file from offset `baseOffset` on; the first call starts at 0.
    Result<GgufFile> parse(std::span<const std::uint8_t> bytes, std::uint64_t baseOffset = 0);
    std::optional<std::uint64_t> neededBytes() const { return m_in.neededBytes(); }
    std::uint64_t resumeOffset() const { return m_itemStart; }
    // After a "gguf.truncated" failure: the file offset the header surely reaches, from the
    // field that ran out and the least each key/value and tensor info not read yet takes. The
    // tensor data cannot start before it, so a reader over HTTP that reads no further than
    // this reads header bytes only (hubclient's remote header read).
    std::uint64_t certainHeaderEnd() const;

  private:
    enum class Stage { Header, Metadata, Tensors, Done };

    void beginItem();
    bool readHeader();
    bool readMetadata();
    bool applyAlignment();
    bool readTensorInfos();
    bool readTensorInfo(std::uint64_t index);
    bool checkTensorPlacement();

    ByteCursor m_in;
    GgufReadLimits m_limits;
    std::uint64_t m_fileBytes = 0;
    GgufValueReader m_values;
    GgufFile m_file;

    Stage m_stage = Stage::Header;
    std::uint64_t m_tensorCount = 0;
    std::uint64_t m_kvCount = 0;
    std::uint64_t m_itemIndex = 0;      // the key/value or tensor info being read
    std::uint64_t m_itemStart = 0;      // where it starts in the file
    std::uint64_t m_itemValueCount = 0; // metadata values counted before it
    std::unordered_set<std::string> m_keys;
    std::unordered_set<std::string> m_tensorNames;
};

// Parses one GGUF part from `bytes`, a prefix of a file of `fileBytes` bytes, in one go.
// When the header runs past the prefix but not past the file, the error is "gguf.truncated"
// and *neededBytes (if given) is set to how many bytes from the start the parser asked for.
Result<GgufFile> parseGgufPrefix(std::span<const std::uint8_t> bytes, std::uint64_t fileBytes,
                                 const GgufReadLimits& limits, std::optional<std::uint64_t>* neededBytes);

} // namespace llamafit
