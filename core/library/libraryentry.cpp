#include "core/library/libraryentry.h"

#include "core/model/modelinterpreter.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string_view>
#include <utility>

namespace llamafit {
namespace {

// llama.cpp include/llama.h enum llama_ftype (values) and tools/quantize/quantize.cpp
// QUANT_OPTIONS (the short names people use; src/llama-model-loader.cpp llama_ftype_name()
// prints the longer "Q4_K - Medium" forms). 4-6 and 33-35 were removed from llama.cpp.
constexpr std::array<std::pair<std::uint64_t, std::string_view>, 35> kFileTypeNames{{
    {0, "F32"},     {1, "F16"},     {2, "Q4_0"},       {3, "Q4_1"},    {7, "Q8_0"},     {8, "Q5_0"},
    {9, "Q5_1"},    {10, "Q2_K"},   {11, "Q3_K_S"},    {12, "Q3_K_M"}, {13, "Q3_K_L"},  {14, "Q4_K_S"},
    {15, "Q4_K_M"}, {16, "Q5_K_S"}, {17, "Q5_K_M"},    {18, "Q6_K"},   {19, "IQ2_XXS"}, {20, "IQ2_XS"},
    {21, "Q2_K_S"}, {22, "IQ3_XS"}, {23, "IQ3_XXS"},   {24, "IQ1_S"},  {25, "IQ4_NL"},  {26, "IQ3_S"},
    {27, "IQ3_M"},  {28, "IQ2_S"},  {29, "IQ2_M"},     {30, "IQ4_XS"}, {31, "IQ1_M"},   {32, "BF16"},
    {36, "TQ1_0"},  {37, "TQ2_0"},  {38, "MXFP4_MOE"}, {39, "NVFP4"},  {40, "Q1_0"},
}};

std::string upper(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return out;
}

} // namespace

std::optional<std::string> llamaFileTypeName(std::uint64_t fileType) {
    // llama.h LLAMA_FTYPE_GUESSED (1024) is a flag llama.cpp sets itself, never a stored value.
    for (const auto& [value, name] : kFileTypeNames) {
        if (value == fileType) {
            return std::string(name);
        }
    }
    return std::nullopt;
}

std::string quantisationName(const ModelInfo& info, const GgufFile& file) {
    if (auto fileType = file.getUint("general.file_type")) {
        if (auto name = llamaFileTypeName(*fileType)) {
            return *name;
        }
    }
    // Like llama.cpp src/llama-model-loader.cpp when general.file_type is absent: the type that
    // dominates (here by bytes rather than by tensor count, which favours many small norms).
    const auto byType = info.weightBytesByType();
    const auto dominant = std::max_element(byType.begin(), byType.end(),
                                           [](const auto& a, const auto& b) { return a.second < b.second; });
    if (dominant == byType.end()) {
        return {};
    }
    return upper(ggmlTypeName(dominant->first));
}

ModelSummary summariseModel(const ModelInfo& info, const GgufFile& file) {
    ModelSummary summary;
    summary.displayName = info.name;
    summary.architecture = info.architecture;
    summary.parameterCount = info.parameterCount();
    summary.activeParameterCount = info.isMoe() ? info.activeParameterCount() : summary.parameterCount;
    summary.quantisation = quantisationName(info, file);
    summary.fileBytes = file.fileBytes != 0 ? file.fileBytes : info.fileBytes;
    summary.trainingContext = info.trainingContext;
    summary.recurrent = info.hasRecurrentLayers();
    summary.hybrid = summary.recurrent && info.hasAttentionLayers();
    summary.slidingWindow = info.hasSlidingWindowLayers();
    summary.mla = info.mla;
    summary.moe = info.isMoe();
    summary.nextnLayerCount = info.nextnLayerCount;
    return summary;
}

bool isProjectorHeader(const GgufFile& file) {
    // llama.cpp tools/mtmd/clip.cpp: projector files carry general.architecture "clip";
    // convert_hf_to_gguf.py writes general.type "mmproj" for them.
    return file.getString("general.type") == "mmproj" || file.getString("general.architecture") == "clip";
}

bool isProjectorFileName(const std::string& fileName) {
    std::string lower = fileName;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find("mmproj") != std::string::npos;
}

LibraryEntry libraryEntryForCard(const ModelSpec& card) {
    LibraryEntry entry;
    entry.path = card.id;
    entry.cardId = card.id;
    entry.name = card.displayName;
    entry.root = {std::string(), LibraryRootKind::UserFolder, "built-in card"};
    const auto info = interpretModel(card.file);
    if (!info.ok()) {
        entry.error = info.error();
        entry.summary.displayName = card.displayName;
        entry.summary.fileBytes = card.file.fileBytes;
        return entry;
    }
    entry.summary = summariseModel(*info, card.file);
    entry.summary.displayName = card.displayName;
    return entry;
}

} // namespace llamafit
