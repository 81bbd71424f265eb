#pragma once
// Names of split GGUF models ("name-00001-of-00003.gguf", as llama.cpp's gguf-split writes
// them and llama_split_path() spells them). Used by readGgufModel() to find every part,
// and by anything that lists models (one entry per split model, not per part).

#include "core/common/result.h"
#include "core/gguf/gguffile.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct GgufSplitName {
    std::string prefix;       // path without "-00001-of-00003.gguf" (directory kept)
    std::uint32_t number = 1; // 1-based part number from the name
    std::uint32_t count = 1;  // part count from the name
    bool operator==(const GgufSplitName&) const = default;
};

// Recognises "<prefix>-<NNNNN>-of-<MMMMM>.gguf" (at least five digits each, as llama.cpp
// writes "%05d"); nullopt for any other name, a part number of 0 or above the count.
std::optional<GgufSplitName> parseGgufSplitName(const std::string& path);

// llama.cpp llama_split_path(): "<prefix>-%05d-of-%05d.gguf" for the 1-based part number.
std::string ggufSplitPartPath(const std::string& prefix, std::uint32_t number, std::uint32_t count);

// The parts of one model, read in order from disk or over HTTP (`partPaths` name them in
// errors), checked as llama.cpp's loader checks them (split.count, split.no, no tensor in two
// parts, split.tensors.count) and merged into one GgufFile whose tensors carry splitIndex. One
// part alone is checked as a single file (it must not claim split.count > 1).
Result<GgufFile> mergeGgufParts(std::vector<GgufFile> parts, std::vector<std::string> partPaths);

} // namespace llamafit
