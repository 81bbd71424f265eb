// A repo's files grouped into quants; see repoquants.h.

#include "core/hub/repoquants.h"
#include "core/common/asciitext.h"

#include "core/gguf/ggufsplit.h"
#include "core/hub/quantlabel.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <tuple>

namespace llamafit {

namespace {

constexpr std::array<std::string_view, 6> kSidecarMarkers{"mmproj",  "imatrix", "mtp-",
                                                          "eagle3-", "dflash-", "dspark-"};
constexpr std::string_view kGgufSuffix = ".gguf";

std::string_view baseName(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view folderOf(std::string_view path) {
    const std::size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? std::string_view{} : path.substr(0, slash);
}

bool hasGgufSuffix(std::string_view path) {
    if (path.size() < kGgufSuffix.size()) {
        return false;
    }
    const std::string_view tail = path.substr(path.size() - kGgufSuffix.size());
    return std::equal(tail.begin(), tail.end(), kGgufSuffix.begin(),
                      [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
}

std::string_view stemOf(std::string_view path) {
    const std::string_view name = baseName(path);
    return hasGgufSuffix(name) ? name.substr(0, name.size() - kGgufSuffix.size()) : name;
}

// Folders two paths share from the root.
std::size_t sharedFolderDepth(std::string_view a, std::string_view b) {
    const std::string_view folderA = folderOf(a);
    const std::string_view folderB = folderOf(b);
    std::size_t depth = 0;
    std::size_t at = 0;
    while (at < folderA.size() && at < folderB.size()) {
        const std::size_t endA = std::min(folderA.find('/', at), folderA.size());
        const std::size_t endB = std::min(folderB.find('/', at), folderB.size());
        if (endA != endB || folderA.substr(at, endA - at) != folderB.substr(at, endB - at)) {
            break;
        }
        ++depth;
        at = endA + 1;
    }
    return depth;
}

bool isProjectorPath(std::string_view path) {
    return hasGgufSuffix(path) && baseName(path).find("mmproj") != std::string_view::npos;
}

std::optional<HubRepoFile> pairedProjector(const std::vector<HubRepoFile>& files, const RepoQuant& quant) {
    const std::optional<int> modelBits = quantBits(quant.label);
    const HubRepoFile* best = nullptr;
    std::tuple<std::size_t, int> bestKey{};
    for (const HubRepoFile& file : files) {
        if (!isProjectorPath(file.path)) {
            continue;
        }
        const std::size_t depth = sharedFolderDepth(file.path, quant.firstPath());
        const std::optional<std::string> label = quantLabelOf(stemOf(file.path));
        const std::optional<int> bits = label ? quantBits(*label) : std::nullopt;
        // Closer in bits is better; an unknown width on either side ranks last.
        const int distance = modelBits && bits ? -std::abs(*modelBits - *bits) : -1000;
        const std::tuple<std::size_t, int> key{depth, distance};
        if (best == nullptr || key > bestKey) {
            best = &file;
            bestKey = key;
        }
    }
    return best != nullptr ? std::optional<HubRepoFile>(*best) : std::nullopt;
}

} // namespace

bool isModelGgufPath(std::string_view path) {
    if (!hasGgufSuffix(path)) {
        return false;
    }
    const std::string_view name = baseName(path);
    return std::none_of(kSidecarMarkers.begin(), kSidecarMarkers.end(),
                        [&](std::string_view marker) { return name.find(marker) != std::string_view::npos; });
}

std::vector<RepoQuant> repoQuants(const std::vector<HubRepoFile>& files) {
    std::vector<RepoQuant> quants;
    // Split sets by (prefix, count): the shard files at their index.
    std::map<std::pair<std::string, std::uint32_t>, std::map<std::uint32_t, const HubRepoFile*>> splitSets;
    for (const HubRepoFile& file : files) {
        if (!isModelGgufPath(file.path)) {
            continue;
        }
        if (const std::optional<GgufSplitName> split = parseGgufSplitName(file.path)) {
            splitSets[{split->prefix, split->count}].emplace(split->number, &file);
            continue;
        }
        RepoQuant quant;
        quant.files.push_back(file);
        quants.push_back(std::move(quant));
    }
    for (const auto& [key, shards] : splitSets) {
        if (shards.size() != key.second) {
            continue; // an incomplete set: a shard missing from the listing
        }
        RepoQuant quant;
        for (const auto& shard : shards) {
            quant.files.push_back(*shard.second);
        }
        quants.push_back(std::move(quant));
    }
    for (RepoQuant& quant : quants) {
        const std::string_view stem = stemOf(quant.firstPath());
        const std::optional<GgufSplitName> split = parseGgufSplitName(quant.firstPath());
        const std::string_view named = split ? baseName(split->prefix) : stem;
        quant.label = quantLabelOf(named).value_or(std::string(named));
        quant.qualityRank = quantQualityRank(quant.label);
        for (const HubRepoFile& file : quant.files) {
            quant.modelBytes += file.size;
        }
        quant.projector = pairedProjector(files, quant);
    }
    std::stable_sort(quants.begin(), quants.end(), [](const RepoQuant& a, const RepoQuant& b) {
        const int rankA = a.qualityRank.value_or(1 << 20);
        const int rankB = b.qualityRank.value_or(1 << 20);
        return std::tie(rankA, a.files.front().path) < std::tie(rankB, b.files.front().path);
    });
    return quants;
}

const RepoQuant* quantForTag(const std::vector<RepoQuant>& quants, std::string_view tag) {
    if (quants.empty()) {
        return nullptr;
    }
    const auto withLabel = [&](std::string_view wanted) -> const RepoQuant* {
        const std::string upper = asciiUpper(wanted);
        for (const RepoQuant& quant : quants) {
            const std::string label = asciiUpper(quant.label);
            if (label == upper || (label.starts_with("UD-") && label.substr(3) == upper)) {
                return &quant;
            }
        }
        return nullptr;
    };
    if (!tag.empty()) {
        return withLabel(tag);
    }
    for (const std::string_view preferred : {"Q4_K_M", "Q8_0"}) {
        if (const RepoQuant* quant = withLabel(preferred)) {
            return quant;
        }
    }
    return &quants.front();
}

} // namespace llamafit
