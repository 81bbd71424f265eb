#pragma once
// GgufValueReader: reads GGUF metadata values (every scalar type, strings, arrays nested
// up to GgufReadLimits::maxArrayNesting) from a ByteCursor for the GGUF parser. It counts
// every value it builds against GgufReadLimits::maxMetadataValues and checks each array
// length against the bytes left before reserving anything. Internal to core/gguf.

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

  private:
    bool readValue(std::uint32_t type, std::uint32_t depth, GgufValue& out);
    bool readArray(std::uint32_t depth, GgufValue& out);

    ByteCursor& m_in;
    const GgufReadLimits& m_limits;
    std::uint64_t m_valueCount = 0;
};

} // namespace llamafit
