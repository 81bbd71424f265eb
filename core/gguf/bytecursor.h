#pragma once
// ByteCursor: a bounded little-endian reader over a window of a GGUF file's header, used
// only by the GGUF parser (core/gguf). It knows three ends: the bytes it was given (the
// file from some offset on), the true file size, and the most header bytes the reader will
// accept. Every read is checked against all three before it touches memory, and a
// failed read leaves a named Error behind, so the parser never reads out of bounds and
// never allocates for a length it has not checked. Positions and sizes are in bytes.

#include "core/common/result.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace llamafit {

class ByteCursor {
  public:
    // `bytes` is a prefix of a file of `fileBytes` bytes; reads past `maxBytes` fail with
    // "gguf.header-too-large" even when the file goes on.
    ByteCursor(std::span<const std::uint8_t> bytes, std::uint64_t fileBytes, std::uint64_t maxBytes);

    // Starts over on `bytes`, the file's bytes from offset `baseOffset` on, at `position`
    // (baseOffset <= position <= baseOffset + bytes.size()), forgetting the last failure.
    // The resumable parser calls it after more of the file was read.
    void restart(std::span<const std::uint8_t> bytes, std::uint64_t baseOffset, std::uint64_t position);

    std::uint64_t position() const { return m_position; }
    // Bytes between the position and the end of the file (not just of the prefix held).
    std::uint64_t fileRemaining() const { return m_fileBytes - m_position; }

    // Reads a fixed-size little-endian value; `what` names the field in error messages.
    template <typename T> bool read(T& out, std::string_view what) {
        const std::uint8_t* raw = take(sizeof(T), what);
        if (!raw) {
            return false;
        }
        // GGUF is little-endian, like every host we build for; llama.cpp ggml/src/gguf.cpp
        // reads the same raw bytes (a byte-swapped file shows up as a huge version).
        std::memcpy(&out, raw, sizeof(T));
        return true;
    }

    // A GGUF string: uint64 length, then that many bytes (no terminator). The length is
    // checked against the bytes left before the string is built ("gguf.string-too-long").
    bool readString(std::string& out, std::string_view what);
    // The same, as a view into the bytes given (valid while they are).
    bool readStringView(std::string_view& out, std::string_view what);

    // Checks that `count` items of at least `minBytesEach` bytes can still fit in the
    // file, before anything is reserved for them ("gguf.absurd-count").
    bool checkCount(std::uint64_t count, std::uint64_t minBytesEach, std::string_view what);

    // Returns a pointer to the next `n` bytes and advances, or nullptr with error() set.
    const std::uint8_t* take(std::uint64_t n, std::string_view what);

    // The bytes from the position on that take() would hand out now: those given, cut at
    // the header limit; empty after a failure. For bulk scans that then take() what they used.
    std::span<const std::uint8_t> readable() const;
    // The bytes given between `start` and the position (window start <= start <= position()).
    std::span<const std::uint8_t> bytesFrom(std::uint64_t start) const;

    // Lets the parser record an error of its own (bad value, duplicate, ...).
    void fail(std::string code, std::string message);
    // Names what is being read ("metadata 'general.name'") in the messages of failed reads.
    // Read labels are plain literals so that a successful read formats nothing.
    void setContext(std::string context) { m_context = std::move(context); }
    const std::string& context() const { return m_context; }
    // Adds "[index]" to the recorded error's message, innermost array first.
    void prependIndex(std::uint64_t index);

    bool failed() const { return m_error.has_value(); }
    // The first failure, with the array element it happened in, if any.
    Error error() const;
    // Set when the only problem is that the prefix held ends before the field does while
    // the file goes on: the caller can read this many bytes from the start and retry.
    std::optional<std::uint64_t> neededBytes() const { return m_neededBytes; }
    // After such a failure, raises neededBytes to `bytes` (kept within the file and the
    // header limit): a reader that can tell how far the field goes saves re-reads.
    void expectNeeded(std::uint64_t bytes);
    // The bytes up to which the header surely goes, after such a failure: the field that ran
    // out, and what a reader proved must follow it (ensureCertain). Unlike neededBytes it holds
    // no estimate, so a reader over the network that stops here never reads tensor data.
    std::optional<std::uint64_t> certainBytes() const { return m_certainBytes; }
    void ensureCertain(std::uint64_t bytes);

  private:
    std::string describe(std::string_view what) const;

    // Bytes held between the position and the end of the window.
    std::uint64_t heldRemaining() const { return m_base + m_bytes.size() - m_position; }

    std::span<const std::uint8_t> m_bytes; // the file from m_base on
    std::uint64_t m_base = 0;
    std::uint64_t m_fileBytes = 0;
    std::uint64_t m_maxBytes = 0;
    std::uint64_t m_position = 0;
    std::string m_context;
    std::string m_indexPath; // "[2][7]" of the array element that failed, if any
    std::optional<Error> m_error;
    std::optional<std::uint64_t> m_neededBytes;
    std::optional<std::uint64_t> m_certainBytes;
};

} // namespace llamafit
