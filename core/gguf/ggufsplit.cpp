#include "core/gguf/ggufsplit.h"

#include "core/common/utf8path.h"
#include "core/gguf/ggufreader.h"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <unordered_set>
#include <vector>

namespace llamafit {
namespace {

constexpr std::string_view kSuffix = ".gguf";
constexpr std::string_view kOf = "-of-";

// Reads the run of digits that ends at `end` (exclusive), going backwards; at least 5.
std::optional<std::uint32_t> digitsBefore(const std::string& text, std::size_t end, std::size_t& begin) {
    begin = end;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(text[begin - 1]))) {
        --begin;
    }
    const std::size_t length = end - begin;
    if (length < 5 || length > 9) {
        return std::nullopt;
    }
    return static_cast<std::uint32_t>(std::stoul(text.substr(begin, length)));
}

Error splitMismatch(const std::string& path, const std::string& what) {
    return makeError("gguf.split-mismatch", path + ": " + what);
}

// llama.cpp src/llama-model-loader.cpp reads split.count and split.no with get_key<uint16_t>,
// which insists on the uint16 type; absent keys come back as nullopt.
Result<std::optional<std::uint64_t>> splitKey(const GgufFile& part, const std::string& path,
                                              const char* key) {
    const GgufValue* value = part.find(key);
    if (!value) {
        return std::optional<std::uint64_t>{};
    }
    if (value->type != GgufValueType::Uint16) {
        return splitMismatch(path, std::string(key) + " must be a uint16 (type 2), not type " +
                                       std::to_string(static_cast<std::uint32_t>(value->type)));
    }
    return std::optional<std::uint64_t>{std::get<std::uint64_t>(value->data)};
}

// A single file: it must not claim to be one part of several.
Result<GgufFile> checkSingleFile(GgufFile file, const std::string& path) {
    const auto count = splitKey(file, path, "split.count");
    if (!count) {
        return count.error();
    }
    if (count->value_or(1) > 1) {
        return splitMismatch(path, "split.count is " + std::to_string(**count) +
                                       " but the file name is not of the form <name>-00001-of-" +
                                       std::to_string(**count) + ".gguf");
    }
    file.splitCount = 1;
    return file;
}

// Checks split.count and split.no of part `index` (0-based) against the file names.
std::optional<Error> checkPartKeys(const GgufFile& part, const std::string& path, std::uint32_t index,
                                   std::uint32_t count) {
    const auto partCount = splitKey(part, path, "split.count");
    if (!partCount) {
        return partCount.error();
    }
    if (*partCount != std::optional<std::uint64_t>{count}) {
        return splitMismatch(path, "split.count is " +
                                       (*partCount ? std::to_string(**partCount) : "missing") +
                                       " but the file names say " + std::to_string(count) + " parts");
    }
    const auto partNo = splitKey(part, path, "split.no");
    if (!partNo) {
        return partNo.error();
    }
    // llama.cpp requires split.no == idx in every part; the first part may omit it (idx 0).
    const std::uint64_t number = partNo->value_or(index == 0 ? 0 : ~std::uint64_t{0});
    if (number != index) {
        return splitMismatch(path, "split.no is " + (*partNo ? std::to_string(**partNo) : "missing") +
                                       " but this is part " + std::to_string(index) +
                                       " (0-based) by its name");
    }
    return std::nullopt;
}

} // namespace

std::optional<GgufSplitName> parseGgufSplitName(const std::string& path) {
    if (path.size() < kSuffix.size() ||
        path.compare(path.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
        return std::nullopt;
    }
    std::size_t countBegin = 0;
    const auto count = digitsBefore(path, path.size() - kSuffix.size(), countBegin);
    if (!count || countBegin < kOf.size() || path.compare(countBegin - kOf.size(), kOf.size(), kOf) != 0) {
        return std::nullopt;
    }
    std::size_t numberBegin = 0;
    const auto number = digitsBefore(path, countBegin - kOf.size(), numberBegin);
    // The dash before the part number must follow a non-empty file name.
    if (!number || numberBegin < 2 || path[numberBegin - 1] != '-' || path[numberBegin - 2] == '/' ||
        path[numberBegin - 2] == '\\') {
        return std::nullopt;
    }
    if (*number == 0 || *count == 0 || *number > *count) {
        return std::nullopt;
    }
    GgufSplitName name{path.substr(0, numberBegin - 1), *number, *count};
    // llama.cpp llama_split_prefix() accepts only the exact "%05d" spelling, so "-000001-"
    // is not a split name.
    if (ggufSplitPartPath(name.prefix, name.number, name.count) != path) {
        return std::nullopt;
    }
    return name;
}

std::string ggufSplitPartPath(const std::string& prefix, std::uint32_t number, std::uint32_t count) {
    char tail[48];
    std::snprintf(tail, sizeof tail, "-%05u-of-%05u.gguf", number, count);
    return prefix + tail;
}

Result<GgufFile> readGgufModel(const std::string& path, const GgufReadLimits& limits) {
    const auto name = parseGgufSplitName(path);
    if (!name || name->count == 1) {
        auto file = readGgufFile(path, limits);
        if (!file) {
            return file.error();
        }
        return checkSingleFile(std::move(*file), path);
    }

    // Every part lives next to the one we were given, under the same prefix.
    std::vector<std::string> paths;
    std::string missing;
    for (std::uint32_t number = 1; number <= name->count; ++number) {
        paths.push_back(ggufSplitPartPath(name->prefix, number, name->count));
        std::error_code ec;
        if (!std::filesystem::exists(pathFromUtf8(paths.back()), ec)) {
            missing += (missing.empty() ? "" : ", ") + paths.back();
        }
    }
    if (!missing.empty()) {
        return makeError("gguf.split-part-missing", path + ": part(s) not found: " + missing);
    }

    std::vector<GgufFile> parts;
    for (const std::string& partPath : paths) {
        auto part = readGgufFile(partPath, limits);
        if (!part) {
            return part.error();
        }
        parts.push_back(std::move(*part));
    }
    return mergeGgufParts(std::move(parts), std::move(paths));
}

Result<GgufFile> mergeGgufParts(std::vector<GgufFile> parts, std::vector<std::string> partPaths) {
    if (parts.empty() || parts.size() != partPaths.size()) {
        return makeError("gguf.split-part-missing", "no GGUF part to merge");
    }
    if (parts.size() == 1) {
        return checkSingleFile(std::move(parts.front()), partPaths.front());
    }
    const auto count = static_cast<std::uint32_t>(parts.size());
    GgufFile merged;
    std::unordered_set<std::string> names;
    for (std::uint32_t index = 0; index < count; ++index) {
        GgufFile& part = parts[index];
        const std::string& path = partPaths[index];
        if (auto error = checkPartKeys(part, path, index, count)) {
            return *error;
        }
        // llama.cpp src/llama-model-loader.cpp: a tensor name may appear in one part only.
        for (auto& tensor : part.tensors) {
            if (!names.insert(tensor.name).second) {
                return makeError("gguf.duplicate-tensor",
                                 path + ": tensor '" + tensor.name + "' is also in an earlier part");
            }
            tensor.splitIndex = index;
        }
        if (index == 0) {
            merged = std::move(part);
            continue;
        }
        merged.fileBytes += part.fileBytes;
        merged.tensors.insert(merged.tensors.end(), std::make_move_iterator(part.tensors.begin()),
                              std::make_move_iterator(part.tensors.end()));
    }

    // llama.cpp src/llama-model-loader.cpp: split.tensors.count of the first part must equal
    // the tensors found in all parts together.
    const auto expected = merged.getUint("split.tensors.count");
    if (!expected || *expected != merged.tensors.size()) {
        return splitMismatch(partPaths[0],
                             "split.tensors.count is " + (expected ? std::to_string(*expected) : "missing") +
                                 " but the parts hold " + std::to_string(merged.tensors.size()) + " tensors");
    }
    merged.splitCount = count;
    merged.partPaths = std::move(partPaths);
    merged.rebuildIndex();
    return merged;
}

} // namespace llamafit
