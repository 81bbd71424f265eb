#include "core/gguf/ggufparser.h"

#include "core/common/units.h"
#include "core/gguf/bytecursor.h"
#include "core/gguf/ggufvaluereader.h"

#include <algorithm>
#include <limits>
#include <string>
#include <unordered_set>

// On-disk layout, as llama.cpp ggml/src/gguf.cpp gguf_init_from_reader() reads it:
//   "GGUF" | uint32 version | uint64 n_tensors | uint64 n_kv
//   n_kv x  { string key | uint32 value type | value }
//   n_tensors x { string name | uint32 n_dims | n_dims x uint64 ne | uint32 ggml type | uint64 offset }
//   padding to general.alignment | data section (never read here)
// Values are read by GgufValueReader (ggufvaluereader.cpp).

namespace llamafit {
namespace {

constexpr std::uint32_t kGgufMagic = 0x46554747; // "GGUF" read as little-endian uint32
constexpr std::uint32_t kMaxDimensions = 4;      // ggml GGML_MAX_DIMS
constexpr std::size_t kMaxTensorName = 64;       // ggml GGML_MAX_NAME, terminator included
constexpr std::uint64_t kDefaultAlignment = 32;  // ggml GGUF_DEFAULT_ALIGNMENT

// The fewest bytes one item can take on disk, to reject counts the file cannot hold.
constexpr std::uint64_t kMinKvBytes = 8 + 4 + 1;                 // key length, type, a 1-byte value
constexpr std::uint64_t kMinTensorInfoBytes = 8 + 4 + 8 + 4 + 8; // name length, n_dims, one ne, type, offset

// The four bytes of `word` in file order, as hex: "47475546".
std::string hexBytes(std::uint32_t word) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    for (int i = 0; i < 4; ++i) {
        const auto byte = static_cast<std::uint8_t>(word >> (8 * i));
        hex += kDigits[byte >> 4];
        hex += kDigits[byte & 15];
    }
    return hex;
}

// a * b, or nullopt when the product exceeds `limit`.
std::optional<std::uint64_t> checkedMul(std::uint64_t a, std::uint64_t b, std::uint64_t limit) {
    if (a != 0 && b > limit / a) {
        return std::nullopt;
    }
    return a * b;
}

} // namespace

GgufParser::GgufParser(std::uint64_t fileBytes, const GgufReadLimits& limits)
    : m_in({}, fileBytes, limits.maxHeaderBytes), m_limits(limits), m_fileBytes(fileBytes),
      m_values(m_in, m_limits) {}

GgufParser::~GgufParser() = default;

Result<GgufFile> GgufParser::parse(std::span<const std::uint8_t> bytes, std::uint64_t baseOffset) {
    // Go on from the start of the item that ran out of bytes last time; everything before
    // it is in m_file already and is not read again.
    if (m_stage == Stage::Done) {
        return makeError("gguf.internal", "the GGUF parser was called again after its final result");
    }
    if (baseOffset > m_itemStart) {
        return makeError("gguf.internal", "the GGUF parser was handed bytes from offset " +
                                              std::to_string(baseOffset) + " to resume at " +
                                              std::to_string(m_itemStart));
    }
    m_in.restart(bytes, baseOffset, m_itemStart);
    m_values.setValueCount(m_itemValueCount);
    if (m_stage == Stage::Header && readHeader()) {
        m_stage = Stage::Metadata;
    }
    if (m_stage == Stage::Metadata && readMetadata() && applyAlignment()) {
        m_stage = Stage::Tensors;
    }
    if (m_stage == Stage::Tensors && readTensorInfos()) {
        // llama.cpp gguf.cpp: the data section starts at the header end padded to the
        // alignment; with no tensors it does not seek, so nothing is padded.
        m_file.dataOffset = m_tensorCount > 0 ? padTo(m_in.position(), m_file.alignment) : m_in.position();
        if (checkTensorPlacement()) {
            m_stage = Stage::Done;
            m_file.fileBytes = m_fileBytes;
            m_file.rebuildIndex();
            return std::move(m_file);
        }
    }
    if (!m_in.neededBytes()) {
        m_stage = Stage::Done; // not a matter of more bytes: the error is final
    }
    return m_in.error();
}

std::uint64_t GgufParser::certainHeaderEnd() const {
    constexpr std::uint64_t kFixedHeaderBytes = 4 + 4 + 8 + 8; // magic, version, the two counts
    std::uint64_t end = kFixedHeaderBytes;
    if (m_stage == Stage::Metadata || m_stage == Stage::Tensors) {
        // The item in progress reaches at least what its failed read proved, and each item
        // after it takes its minimum (checkedMul: counts were bounded by the file size).
        const bool metadata = m_stage == Stage::Metadata;
        const std::uint64_t count = metadata ? m_kvCount : m_tensorCount;
        const std::uint64_t itemsAfter = m_itemIndex < count ? count - m_itemIndex - 1 : 0;
        const std::uint64_t itemMinimum = metadata ? kMinKvBytes : kMinTensorInfoBytes;
        const std::uint64_t current = std::max(m_in.certainBytes().value_or(0), m_itemStart + itemMinimum);
        end = current + itemsAfter * itemMinimum + (metadata ? m_tensorCount * kMinTensorInfoBytes : 0);
    }
    return std::min(end, m_fileBytes);
}

// Marks the start of one item (the header, a key/value, a tensor info): a later call
// resumes here when the item runs past the bytes given.
void GgufParser::beginItem() {
    m_itemStart = m_in.position();
    m_itemValueCount = m_values.valueCount();
}

bool GgufParser::readHeader() {
    std::uint64_t& tensorCount = m_tensorCount;
    std::uint64_t& kvCount = m_kvCount;
    if (m_fileBytes == 0) {
        m_in.fail("gguf.truncated", "the file is empty");
        return false;
    }
    std::uint32_t magic = 0;
    m_in.setContext("header");
    if (!m_in.read(magic, "magic")) {
        return false;
    }
    if (magic != kGgufMagic) {
        m_in.fail("gguf.bad-magic",
                  "the file does not start with \"GGUF\" (its first bytes are " + hexBytes(magic) + ")");
        return false;
    }
    if (!m_in.read(m_file.version, "version")) {
        return false;
    }
    // llama.cpp gguf.cpp: v1 is refused, versions above GGUF_VERSION (3) too, and a version
    // whose low 16 bits are zero is a file of the other endianness.
    const std::uint32_t version = m_file.version;
    if (version != 2 && version != 3) {
        std::string why =
            version == 1 ? "GGUF v1 is obsolete; convert the model again"
            : version != 0 && (version & 0xFFFF) == 0
                ? "a big-endian GGUF (this reader, like llama.cpp on x86/ARM, needs little-endian)"
                : "only GGUF v2 and v3 are supported";
        m_in.fail("gguf.unsupported-version", "GGUF version " + std::to_string(version) + ": " + why);
        return false;
    }
    if (!m_in.read(tensorCount, "tensor count") || !m_in.read(kvCount, "metadata count")) {
        return false;
    }
    // Every tensor info and every key/value takes a minimum number of bytes, so counts the
    // rest of the file cannot hold are rejected before anything is reserved for them.
    if (!m_in.checkCount(tensorCount, kMinTensorInfoBytes, "tensor count")) {
        return false;
    }
    const std::uint64_t left = m_in.fileRemaining() - tensorCount * kMinTensorInfoBytes;
    if (kvCount > left / kMinKvBytes) {
        m_in.fail("gguf.absurd-count", "metadata count is " + std::to_string(kvCount) + ", but at " +
                                           std::to_string(kMinKvBytes) +
                                           " bytes each that needs more than the " + std::to_string(left) +
                                           " bytes left after the tensor table");
        return false;
    }
    return true;
}

bool GgufParser::readMetadata() {
    for (; m_itemIndex < m_kvCount; ++m_itemIndex) {
        beginItem();
        const std::uint64_t i = m_itemIndex;
        std::string key;
        m_in.setContext("metadata key #" + std::to_string(i));
        if (!m_in.readString(key, "key")) {
            return false;
        }
        if (key.empty()) {
            m_in.fail("gguf.empty-key", "metadata key #" + std::to_string(i) + " is empty");
            return false;
        }
        if (m_keys.contains(key)) {
            m_in.fail("gguf.duplicate-key", "metadata key '" + key + "' appears twice");
            return false;
        }
        m_in.setContext("metadata '" + key + "'");
        std::uint32_t type = 0;
        if (!m_in.read(type, "value type")) {
            return false;
        }
        GgufValue value;
        if (!m_values.read(type, value)) {
            return false;
        }
        // Only a key read in full is recorded, so a resumed read does not see it twice.
        m_keys.insert(key);
        m_file.metadata.emplace_back(std::move(key), std::move(value));
    }
    m_itemIndex = 0;
    beginItem();
    return true;
}

bool GgufParser::readTensorInfos() {
    for (; m_itemIndex < m_tensorCount; ++m_itemIndex) {
        beginItem();
        if (!readTensorInfo(m_itemIndex)) {
            return false;
        }
    }
    return true;
}

bool GgufParser::applyAlignment() {
    // llama.cpp gguf.cpp: general.alignment must be a uint32 and a non-zero power of two.
    const GgufValue* value = m_file.find("general.alignment");
    if (!value) {
        m_file.alignment = kDefaultAlignment;
        return true;
    }
    if (value->type != GgufValueType::Uint32) {
        m_in.fail("gguf.bad-alignment", "general.alignment has value type " +
                                            std::to_string(static_cast<std::uint32_t>(value->type)) +
                                            "; it must be uint32 (4)");
        return false;
    }
    const std::uint64_t alignment = std::get<std::uint64_t>(value->data);
    if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        m_in.fail("gguf.bad-alignment", "general.alignment is " + std::to_string(alignment) +
                                            "; it must be a non-zero power of two");
        return false;
    }
    m_file.alignment = alignment;
    return true;
}

bool GgufParser::readTensorInfo(std::uint64_t index) {
    GgufTensorInfo tensor;
    m_in.setContext("tensor #" + std::to_string(index));
    if (!m_in.readString(tensor.name, "name")) {
        return false;
    }
    if (tensor.name.size() >= kMaxTensorName) {
        m_in.fail("gguf.tensor-name-too-long", "tensor #" + std::to_string(index) + " has a name of " +
                                                   std::to_string(tensor.name.size()) +
                                                   " bytes; ggml allows " +
                                                   std::to_string(kMaxTensorName - 1));
        return false;
    }
    if (m_tensorNames.contains(tensor.name)) {
        m_in.fail("gguf.duplicate-tensor", "tensor '" + tensor.name + "' appears twice");
        return false;
    }
    const std::string what = "tensor '" + tensor.name + "'";
    m_in.setContext(what);
    if (!m_in.read(tensor.dimensionCount, "dimension count")) {
        return false;
    }
    if (tensor.dimensionCount == 0 || tensor.dimensionCount > kMaxDimensions) {
        m_in.fail("gguf.bad-tensor-shape", what + " has " + std::to_string(tensor.dimensionCount) +
                                               " dimensions; ggml allows 1 to " +
                                               std::to_string(kMaxDimensions));
        return false;
    }
    // llama.cpp gguf.cpp: every ne is a non-negative int64 and the element count must stay
    // below INT64_MAX; we also refuse empty dimensions, which no model has.
    constexpr auto kMaxElements = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    std::uint64_t elements = 1;
    for (std::uint32_t d = 0; d < tensor.dimensionCount; ++d) {
        if (!m_in.read(tensor.shape[d], "dimension")) {
            return false;
        }
        const auto product = checkedMul(elements, tensor.shape[d], kMaxElements);
        if (tensor.shape[d] == 0 || !product) {
            m_in.fail("gguf.bad-tensor-shape",
                      what + " ne[" + std::to_string(d) + "] = " + std::to_string(tensor.shape[d]) +
                          (tensor.shape[d] == 0 ? " is empty" : " overflows the element count"));
            return false;
        }
        elements = *product;
    }
    std::uint32_t typeId = 0;
    if (!m_in.read(typeId, "type")) {
        return false;
    }
    const auto traits = ggmlTypeTraits(typeId);
    if (!traits) {
        m_in.fail(traits.error().code, what + ": " + traits.error().message);
        return false;
    }
    tensor.type = traits->type;
    // llama.cpp gguf.cpp: a row (ne0) must be a whole number of blocks.
    if (!ggmlRowDivisible(tensor.type, tensor.shape[0])) {
        m_in.fail("gguf.bad-tensor-shape", what + " has rows of " + std::to_string(tensor.shape[0]) +
                                               " values, not a multiple of the " + std::string(traits->name) +
                                               " block size " + std::to_string(traits->blockSize));
        return false;
    }
    // ggml_nbytes for a contiguous tensor: row bytes times the other dimensions.
    constexpr auto kMaxBytes = std::numeric_limits<std::uint64_t>::max();
    std::optional<std::uint64_t> bytes =
        checkedMul(tensor.shape[0] / traits->blockSize, traits->bytesPerBlock, kMaxBytes);
    for (std::uint32_t d = 1; bytes && d < kMaxDimensions; ++d) {
        bytes = checkedMul(*bytes, tensor.shape[d], kMaxBytes);
    }
    if (!bytes) {
        m_in.fail("gguf.bad-tensor-shape", what + " is larger than 2^64 bytes");
        return false;
    }
    tensor.bytes = *bytes;
    if (!m_in.read(tensor.dataOffset, "data offset")) {
        return false;
    }
    m_tensorNames.insert(tensor.name);
    m_file.tensors.push_back(std::move(tensor));
    return true;
}

bool GgufParser::checkTensorPlacement() {
    std::uint64_t packedEnd = 0; // where the next tensor's data must start
    for (const auto& tensor : m_file.tensors) {
        // llama.cpp gguf.cpp requires offsets on the alignment grid; llama-model-loader.cpp
        // (llama_tensor_weight) refuses data "not within the file bounds".
        if (tensor.dataOffset % m_file.alignment != 0) {
            m_in.fail("gguf.misaligned-tensor",
                      "tensor '" + tensor.name + "' has data offset " + std::to_string(tensor.dataOffset) +
                          ", not a multiple of the " + std::to_string(m_file.alignment) + "-byte alignment");
            return false;
        }
        const std::uint64_t room = m_fileBytes > m_file.dataOffset ? m_fileBytes - m_file.dataOffset : 0;
        if (tensor.dataOffset > room || tensor.bytes > room - tensor.dataOffset) {
            m_in.fail("gguf.tensor-out-of-bounds",
                      "tensor '" + tensor.name + "' (" + std::to_string(tensor.bytes) +
                          " bytes at data offset " + std::to_string(tensor.dataOffset) +
                          ") ends past the end of the " + std::to_string(m_fileBytes) +
                          "-byte file (data section starts at " + std::to_string(m_file.dataOffset) + ")");
            return false;
        }
        // llama.cpp gguf.cpp (gguf_init_from_file_impl) lays the data out itself, in table order,
        // each tensor padded to the alignment, and refuses a file whose offsets differ: "tensor
        // '%s' has offset %llu, expected %zu" -- a gap, an overlap or a reordered table.
        if (tensor.dataOffset != packedEnd) {
            m_in.fail("gguf.unexpected-tensor-offset",
                      "tensor '" + tensor.name + "' has data offset " + std::to_string(tensor.dataOffset) +
                          ", expected " + std::to_string(packedEnd) +
                          " (llama.cpp needs the tensors' data packed in table order)");
            return false;
        }
        packedEnd = padTo(tensor.dataOffset + tensor.bytes, m_file.alignment);
    }
    return true;
}

Result<GgufFile> parseGgufPrefix(std::span<const std::uint8_t> bytes, std::uint64_t fileBytes,
                                 const GgufReadLimits& limits, std::optional<std::uint64_t>* neededBytes) {
    GgufParser parser(fileBytes, limits);
    auto result = parser.parse(bytes);
    if (neededBytes) {
        *neededBytes = result.ok() ? std::nullopt : parser.neededBytes();
    }
    return result;
}

} // namespace llamafit
