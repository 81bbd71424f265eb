#pragma once
// LibraryEntry: one row of the model picker -- a model found on disk (one file, every part of
// a split model, or an Ollama blob) or a built-in model card -- with the summary read from its
// GGUF header (name, architecture, parameters, quantisation, size, training context, badges),
// or the reader's error when the file cannot be read. Produced by the library scan
// (libraryscan.h) on its worker thread, shown by the GUI's ModelLibraryModel. Plain values;
// sizes in bytes, context in tokens.

#include "core/common/result.h"
#include "core/gguf/gguffile.h"
#include "core/library/modellocations.h"
#include "core/model/modelinfo.h"
#include "core/model/modelspec.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct ModelSummary {
    std::string displayName;  // general.name, else the file name
    std::string architecture; // general.architecture
    std::uint64_t parameterCount = 0;
    std::uint64_t activeParameterCount = 0; // equals parameterCount unless MoE
    std::string quantisation;               // "Q4_K_M" (general.file_type), else the dominant weight type
    std::uint64_t fileBytes = 0;            // all parts on disk (a card: its data section)
    std::uint64_t trainingContext = 0;      // tokens
    bool recurrent = false;     // has recurrent layers: an RS buffer (hybrid when it also has attention)
    bool hybrid = false;        // recurrent and attention layers
    bool slidingWindow = false; // SWA / chunked layers
    bool mla = false;
    bool moe = false;
    std::uint32_t nextnLayerCount = 0; // NextN (MTP) blocks: --spec-type draft-mtp can draft with them
    bool operator==(const ModelSummary&) const = default;
};

struct LibraryEntry {
    std::string path;   // what llama-server's -m takes: the file, the first split part, the blob; a card id
    std::string name;   // the name listed: file name, "org/repo (file)", "model:tag", card name
    std::string cardId; // non-empty for a built-in card (path is then the card id too)
    LibraryRoot root;   // where it was found (a card: kind UserFolder, label "built-in card")
    std::vector<std::string> partPaths;   // every part (one for an unsplit file)
    std::vector<std::string> mmprojPaths; // projector files in the same folder / manifest
    ModelSummary summary;                 // what could be read (size even when the header is corrupt)
    std::optional<Error> error;           // unreadable, corrupt, missing split part, ...
    bool operator==(const LibraryEntry&) const = default;
};

// The summary of an interpreted model; `file` gives general.file_type and the on-disk size.
ModelSummary summariseModel(const ModelInfo& info, const GgufFile& file);

// llama.cpp's name for a general.file_type value ("Q4_K_M", "IQ3_XXS", "BF16"); nullopt for
// values llama.cpp does not define (or removed).
std::optional<std::string> llamaFileTypeName(std::uint64_t fileType);

// general.file_type's name, else the ggml type that holds most weight bytes ("Q6_K", "F16").
std::string quantisationName(const ModelInfo& info, const GgufFile& file);

// True when the header says this is a multimodal projector, not a model: general.type
// "mmproj" or general.architecture "clip" (llama.cpp tools/mtmd/clip.cpp reads such files).
bool isProjectorHeader(const GgufFile& file);
// True when the file name says so ("mmproj-model-f16.gguf", "gemma-3-mmproj.gguf"), any case.
bool isProjectorFileName(const std::string& fileName);

// A built-in card as a row: path = cardId = the card id, summary from interpretModel(card.file).
LibraryEntry libraryEntryForCard(const ModelSpec& card);

} // namespace llamafit
