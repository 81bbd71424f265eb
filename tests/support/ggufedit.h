#pragma once
// In-place edits of a GgufFile's metadata, for tests that make a file with one thing wrong
// (refusedmodels.h, the hostile-input test). Call GgufFile::rebuildIndex() after editing: the
// lookups index the keys by position. Test support only.

#include "core/gguf/gguffile.h"

#include <string>

namespace llamafit::test {

// Replaces the key's value, or appends the key when the file has none.
void setMetadataKey(GgufFile& file, const std::string& key, GgufValue value);
void removeMetadataKey(GgufFile& file, const std::string& key);

} // namespace llamafit::test
