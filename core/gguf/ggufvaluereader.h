#pragma once
// GgufValueReader: reads GGUF metadata values (every scalar type, strings, arrays nested
// up to GgufReadLimits::maxArrayNesting) from a ByteCursor for the GGUF parser. It counts
// every value it builds against GgufReadLimits::maxMetadataValues and checks each array
// length against the bytes left before reserving anything. Arrays of numbers are copied in
// one piece, arrays of strings into one buffer (see GgufArray). Internal to core/gguf.

#include "core/gguf/bytecursor.h"
#include "core/gguf/ggufreader.h"
#include "core/gguf/ggufvalue.h"

#include <cstdint>

namespace llamafit {

class GgufValueReader {
  public:
    // Both are borrowed and must outlive the reader; failures are recorded in `in`.
    GgufValueReader(ByteCursor& in, const GgufReadLimits& limits) : m_in(in), m_limits(limits) {}

    // Reads one value of on-disk type `type` (the id that follows a metadata key).
    bool read(std::uint32_t type, GgufValue& out) { return readValue(type, 0, out); }

    // Values counted so far; the resumable parser puts the count back to where the value
    // it reads again started.
    std::uint64_t valueCount() const { return m_valueCount; }
    void setValueCount(std::uint64_t count) { m_valueCount = count; }

  private:
    bool countValue();
    bool readValue(std::uint32_t type, std::uint32_t depth, GgufValue& out);
    bool readArray(std::uint32_t depth, GgufArray& out);
    bool readPackedElements(std::uint64_t count, GgufArray& array);
    bool readStringElements(std::uint64_t count, GgufArray& array);
    bool readArrayElements(std::uint64_t count, std::uint32_t depth, GgufArray& array);

    ByteCursor& m_in;
    const GgufReadLimits& m_limits;
    std::uint64_t m_valueCount = 0;
};

} // namespace llamafit
