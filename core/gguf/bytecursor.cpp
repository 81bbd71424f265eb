#include "core/gguf/bytecursor.h"

#include <algorithm>

namespace llamafit {

ByteCursor::ByteCursor(std::span<const std::uint8_t> bytes, std::uint64_t fileBytes, std::uint64_t maxBytes)
    : m_bytes(bytes.first(static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), fileBytes)))),
      m_fileBytes(fileBytes), m_maxBytes(maxBytes) {}

void ByteCursor::restart(std::span<const std::uint8_t> bytes, std::uint64_t baseOffset,
                         std::uint64_t position) {
    m_base = std::min(baseOffset, m_fileBytes);
    m_bytes =
        bytes.first(static_cast<std::size_t>(std::min<std::uint64_t>(bytes.size(), m_fileBytes - m_base)));
    m_position = std::clamp<std::uint64_t>(position, m_base, m_base + m_bytes.size());
    m_context.clear();
    m_indexPath.clear();
    m_error.reset();
    m_neededBytes.reset();
    m_certainBytes.reset();
}

void ByteCursor::ensureCertain(std::uint64_t bytes) {
    if (m_certainBytes) {
        m_certainBytes = std::max(*m_certainBytes, std::min({bytes, m_fileBytes, m_maxBytes}));
        m_neededBytes = std::max(*m_neededBytes, *m_certainBytes);
    }
}

void ByteCursor::expectNeeded(std::uint64_t bytes) {
    if (m_neededBytes) {
        // Stay below both ends, so that a caller reading this many bytes never asks for
        // more than the file or the limit allows.
        m_neededBytes = std::max(*m_neededBytes, std::min({bytes, m_fileBytes, m_maxBytes}));
    }
}

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
    if (n > heldRemaining()) {
        // The file goes on; only the bytes we were handed end too soon.
        m_neededBytes = m_position + n;
        m_certainBytes = m_neededBytes;
        fail("gguf.truncated", describe(what) + " at offset " + std::to_string(m_position) +
                                   " runs past the " + std::to_string(m_base + m_bytes.size()) +
                                   " header bytes given");
        return nullptr;
    }
    const std::uint8_t* out = m_bytes.data() + (m_position - m_base);
    m_position += n;
    return out;
}

std::span<const std::uint8_t> ByteCursor::readable() const {
    if (m_error || m_position > m_maxBytes) {
        return {};
    }
    return m_bytes.subspan(static_cast<std::size_t>(m_position - m_base),
                           static_cast<std::size_t>(std::min(heldRemaining(), m_maxBytes - m_position)));
}

std::span<const std::uint8_t> ByteCursor::bytesFrom(std::uint64_t start) const {
    return m_bytes.subspan(static_cast<std::size_t>(start - m_base),
                           static_cast<std::size_t>(m_position - start));
}

bool ByteCursor::readString(std::string& out, std::string_view what) {
    std::string_view view;
    if (!readStringView(view, what)) {
        return false;
    }
    out.assign(view);
    return true;
}

bool ByteCursor::readStringView(std::string_view& out, std::string_view what) {
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
    out = std::string_view(reinterpret_cast<const char*>(raw), static_cast<std::size_t>(length));
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
        // Built with insert rather than "[" + ... + "]", which g++ 12 -O3 misreads as an
        // overlapping memcpy (-Wrestrict).
        std::string element = std::to_string(index);
        element.insert(element.begin(), '[');
        element.push_back(']');
        m_indexPath.insert(0, element);
    }
}

void ByteCursor::fail(std::string code, std::string message) {
    if (!m_error) {
        m_error = makeError(std::move(code), std::move(message));
    }
}

} // namespace llamafit
