#include "core/gguf/bytecursor.h"

#include <algorithm>

namespace llamafit {

ByteCursor::ByteCursor(std::span<const std::uint8_t> bytes, std::uint64_t fileBytes, std::uint64_t maxBytes)
    : m_bytes(bytes.first(static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), fileBytes)))),
      m_fileBytes(fileBytes), m_maxBytes(maxBytes) {}

const std::uint8_t* ByteCursor::take(std::uint64_t n, std::string_view what) {
    if (m_error) {
        return nullptr;
    }
    // Compare against what is left rather than computing position + n, which a hostile
    // length could overflow.
    if (n > fileRemaining()) {
        fail("gguf.truncated", describe(what) + " at offset " + std::to_string(m_position) + " needs " +
                                   std::to_string(n) + " bytes but the file ends after " +
                                   std::to_string(fileRemaining()) + " more");
        return nullptr;
    }
    if (m_position > m_maxBytes || n > m_maxBytes - m_position) {
        fail("gguf.header-too-large", describe(what) + " at offset " + std::to_string(m_position) +
                                          " ends past the " + std::to_string(m_maxBytes) +
                                          "-byte limit for a GGUF header");
        return nullptr;
    }
    if (n > m_bytes.size() - m_position) {
        // The file goes on; only the prefix we were handed is too short.
        m_neededBytes = m_position + n;
        fail("gguf.truncated", describe(what) + " at offset " + std::to_string(m_position) +
                                   " runs past the " + std::to_string(m_bytes.size()) +
                                   " header bytes given");
        return nullptr;
    }
    const std::uint8_t* out = m_bytes.data() + m_position;
    m_position += n;
    return out;
}

bool ByteCursor::readString(std::string& out, std::string_view what) {
    std::uint64_t length = 0;
    if (!read(length, what)) {
        return false;
    }
    // llama.cpp ggml/src/gguf.cpp gguf_reader::read(std::string&): a length larger than the
    // bytes left in the file is rejected before the string is resized.
    if (length > fileRemaining()) {
        fail("gguf.string-too-long", describe(what) + " at offset " + std::to_string(m_position) +
                                         " claims " + std::to_string(length) + " bytes but only " +
                                         std::to_string(fileRemaining()) + " are left in the file");
        return false;
    }
    const std::uint8_t* raw = take(length, what);
    if (!raw) {
        return false;
    }
    out.assign(reinterpret_cast<const char*>(raw), static_cast<std::size_t>(length));
    return true;
}

bool ByteCursor::checkCount(std::uint64_t count, std::uint64_t minBytesEach, std::string_view what) {
    if (m_error) {
        return false;
    }
    // Division, not multiplication: count * minBytesEach could overflow.
    if (minBytesEach > 0 && count > fileRemaining() / minBytesEach) {
        fail("gguf.absurd-count", describe(what) + " is " + std::to_string(count) + " at offset " +
                                      std::to_string(m_position) + ", but at " +
                                      std::to_string(minBytesEach) + " bytes each that needs more than the " +
                                      std::to_string(fileRemaining()) + " bytes left in the file");
        return false;
    }
    return true;
}

std::string ByteCursor::describe(std::string_view what) const {
    return m_context.empty() ? std::string(what) : m_context + ": " + std::string(what);
}

Error ByteCursor::error() const {
    Error error = *m_error;
    if (!m_indexPath.empty()) {
        error.message += " (in array element " + m_indexPath + ")";
    }
    return error;
}

void ByteCursor::prependIndex(std::uint64_t index) {
    if (m_error) {
        m_indexPath = "[" + std::to_string(index) + "]" + m_indexPath;
    }
}

void ByteCursor::fail(std::string code, std::string message) {
    if (!m_error) {
        m_error = makeError(std::move(code), std::move(message));
    }
}

} // namespace llamafit
