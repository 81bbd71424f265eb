#pragma once
// A Hugging Face repo's files grouped into the quants a user chooses from: the shards of a split
// model as one quant, files in subfolders included, incomplete split sets dropped, projectors
// paired with each quant, and the sidecars that are not models left out.
//
// The rules are llama.cpp's, so a quant here is what `llama-server -hf REPO:TAG` would load
// (b11669 common/download.cpp):
//   gguf_filename_is_model  a .gguf whose base name holds none of "mmproj", "imatrix", "mtp-",
//                           "eagle3-", "dflash-", "dspark-" (case-sensitive);
//   get_gguf_split_info     "<prefix>-%05d-of-%05d.gguf" (core/gguf/ggufsplit.h);
//   find_best_sibling       the projector sharing the longest folder prefix with the model, then
//                           the one closest in bits (extract_quant_bits), then the first listed.
// Labels and the quality order are the Hub's (quantlabel.h).
// Pure functions.

#include "core/hub/hubresponses.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

bool isModelGgufPath(std::string_view path);

struct RepoQuant {
    std::string label;                    // "Q4_K_M", "UD-Q4_K_XL"; the file's stem when it has none
    std::vector<HubRepoFile> files;       // the model: one file, or the shards from 1 to N
    std::uint64_t modelBytes = 0;         // the files' sizes summed
    std::optional<HubRepoFile> projector; // the mmproj llama.cpp pairs with it, if the repo has one
    std::optional<int> qualityRank;       // quantQualityRank(label)

    // The first file's path: what llama-server's -m is given.
    const std::string& firstPath() const { return files.front().path; }
    bool operator==(const RepoQuant&) const = default;
};

// The quants in the Hub's quality order (best first; unranked labels after, by path).
std::vector<RepoQuant> repoQuants(const std::vector<HubRepoFile>& files);

// The quant `tag` names: its label, case-insensitive, with or without "UD-" (llama.cpp lists
// "UD-Q4_K_XL" as "Q4_K_XL"); with no tag, llama.cpp's default: Q4_K_M, then Q8_0, then the
// best-quality quant (llama.cpp takes the first model in the listing). nullptr when none matches.
const RepoQuant* quantForTag(const std::vector<RepoQuant>& quants, std::string_view tag);

} // namespace llamafit
