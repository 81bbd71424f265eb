// Tensor templates of the ModelSpec format (see modelspec.cpp for the format): parses the
// "tensors" list, expands "{i}" templates over their selected blocks and lays out the data
// offsets the way ggml/src/gguf.cpp does (each tensor padded to general.alignment).
#include "core/common/units.h"
#include "core/model/modelspec_internal.h"

#include <set>

namespace llamafit::spec {
namespace {

using nlohmann::json;

constexpr std::string_view kLayerPlaceholder = "{i}";

struct TensorEntry {
    std::string name; // may hold {i}
    GgmlType type = GgmlType::F32;
    std::vector<std::uint64_t> shape;
    std::vector<bool> layers; // for templates: the blocks it expands to
    bool isTemplate = false;
};

std::string expandName(const std::string& pattern, std::uint32_t layer) {
    std::string name = pattern;
    for (auto at = name.find(kLayerPlaceholder); at != std::string::npos; at = name.find(kLayerPlaceholder)) {
        name.replace(at, kLayerPlaceholder.size(), std::to_string(layer));
    }
    return name;
}

Result<TensorEntry> parseTensorEntry(const json& entry, std::uint32_t blockCount, const std::string& where) {
    if (!entry.is_object()) {
        return makeError("spec.bad-json", where + ": a tensor must be an object");
    }
    if (auto bad = checkFields(entry, {"name", "type", "shape", "layers"}, where)) {
        return *bad;
    }
    TensorEntry tensor;
    auto name = requiredString(entry, "name", where);
    if (!name) {
        return name.error();
    }
    tensor.name = std::move(*name);
    const std::string named = where + " (\"" + tensor.name + "\")";
    auto typeName = requiredString(entry, "type", named);
    if (!typeName) {
        return typeName.error();
    }
    const auto type = ggmlTypeFromName(*typeName);
    if (!type) {
        return makeError("spec.bad-tensor", named + ": unknown ggml type \"" + *typeName + "\"");
    }
    tensor.type = *type;
    if (!entry.contains("shape")) {
        return makeError("spec.missing-field", named + ": missing \"shape\"");
    }
    const json& shape = entry.at("shape");
    if (!shape.is_array() || shape.empty() || shape.size() > 4) {
        return makeError("spec.bad-tensor", named + ": shape must list 1 to 4 dimensions");
    }
    for (const json& dim : shape) {
        if (!dim.is_number_unsigned() || dim.get<std::uint64_t>() == 0) {
            return makeError("spec.bad-tensor",
                             named + ": dimension " + dim.dump() + " is not a positive integer");
        }
        tensor.shape.push_back(dim.get<std::uint64_t>());
    }
    if (!ggmlRowDivisible(tensor.type, tensor.shape[0])) {
        return makeError("spec.bad-tensor", named + ": row of " + std::to_string(tensor.shape[0]) +
                                                " values is not a multiple of the " + *typeName +
                                                " block of " +
                                                std::to_string(ggmlTypeTraits(tensor.type).blockSize));
    }
    tensor.isTemplate = tensor.name.find(kLayerPlaceholder) != std::string::npos;
    if (!tensor.isTemplate) {
        if (entry.contains("layers")) {
            return makeError("spec.bad-tensor", named + ": \"layers\" needs a name with {i}");
        }
        return tensor;
    }
    auto layers =
        parseLayerSelector(entry.value("layers", json("all")), blockCount, named, "spec.bad-tensor");
    if (!layers) {
        return layers.error();
    }
    tensor.layers = std::move(*layers);
    return tensor;
}

GgufTensorInfo makeTensor(const TensorEntry& entry, std::string name) {
    GgufTensorInfo tensor;
    tensor.name = std::move(name);
    tensor.type = entry.type;
    tensor.dimensionCount = static_cast<std::uint32_t>(entry.shape.size());
    for (std::size_t d = 0; d < entry.shape.size(); ++d) {
        tensor.shape[d] = entry.shape[d];
    }
    // ggml_nbytes of a contiguous tensor: row bytes times the outer dimensions.
    tensor.bytes =
        ggmlRowBytes(tensor.type, tensor.shape[0]) * tensor.shape[1] * tensor.shape[2] * tensor.shape[3];
    return tensor;
}

// Expands the entries (runs of templates block-major) and lays out aligned data offsets.
Result<std::vector<GgufTensorInfo>> expandTensors(const std::vector<TensorEntry>& entries,
                                                  std::uint32_t blockCount, std::uint64_t alignment) {
    std::vector<GgufTensorInfo> tensors;
    for (std::size_t n = 0; n < entries.size();) {
        if (!entries[n].isTemplate) {
            tensors.push_back(makeTensor(entries[n], entries[n].name));
            ++n;
            continue;
        }
        std::size_t runEnd = n;
        while (runEnd < entries.size() && entries[runEnd].isTemplate) {
            ++runEnd;
        }
        for (std::uint32_t layer = 0; layer < blockCount; ++layer) {
            for (std::size_t t = n; t < runEnd; ++t) {
                if (entries[t].layers[layer]) {
                    tensors.push_back(makeTensor(entries[t], expandName(entries[t].name, layer)));
                }
            }
        }
        n = runEnd;
    }
    std::set<std::string_view> seen;
    std::uint64_t offset = 0;
    for (auto& tensor : tensors) {
        if (!seen.insert(tensor.name).second) {
            return makeError("spec.bad-tensor", "tensor \"" + tensor.name + "\" is listed twice");
        }
        tensor.dataOffset = offset;
        offset = padTo(offset + tensor.bytes, alignment);
    }
    return tensors;
}

// general.architecture and <arch>.block_count, needed before templates can expand.
} // namespace

Result<std::vector<GgufTensorInfo>> parseTensors(const json& list, std::uint32_t blockCount,
                                                 std::uint64_t alignment, const std::string& where) {
    std::vector<TensorEntry> entries;
    for (std::size_t n = 0; n < list.size(); ++n) {
        auto entry = parseTensorEntry(list[n], blockCount, where + " tensors[" + std::to_string(n) + "]");
        if (!entry) {
            return entry.error();
        }
        entries.push_back(std::move(*entry));
    }
    auto tensors = expandTensors(entries, blockCount, alignment);
    if (!tensors) {
        return makeError(tensors.error().code, where + ": " + tensors.error().message);
    }
    return tensors;
}

} // namespace llamafit::spec
