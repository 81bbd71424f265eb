#pragma once
// Library fixtures for the model picker's tests: a scratch folder and the model files a real
// library holds -- tiny real GGUF models, a split model written the way llama.cpp's gguf-split
// writes it, a multimodal projector, a corrupt file, HF cache and Ollama layouts. Used by
// tests/unit/library and tests/gui/library. Test code only; header-only.

#include "core/gguf/ggufsplit.h"
#include "tests/support/ggufbuilder.h"
#include "tests/support/ggufwriter.h"
#include "tests/support/modelfiles.h"

#include "tests/support/tempfolder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace llamafit::test {

// A fresh folder under GoogleTest's TempDir(), removed with everything in it at the end.
class LibraryDir {
  public:
    LibraryDir() { m_path = makeTempFolder("llamafit-library-"); }
    ~LibraryDir() {
        std::error_code ec;
        if (!m_path.empty()) {
            std::filesystem::remove_all(m_path, ec);
        }
    }
    LibraryDir(const LibraryDir&) = delete;
    LibraryDir& operator=(const LibraryDir&) = delete;

    bool valid() const { return !m_path.empty(); }
    const std::string& root() const { return m_path; }
    // The full path of `relative`, its parent folders created, as the library lists paths:
    // '/' between the parts on every platform (core/common/utf8path.h).
    std::string path(const std::string& relative) const {
        std::filesystem::path full = std::filesystem::path(m_path) / relative;
        std::filesystem::create_directories(full.parent_path());
        return full.generic_string();
    }

  private:
    std::string m_path;
};

// The tiny real llama (tests/support/modelfiles.h) at `path`; general.name set to `name`.
inline void writeTinyModelNamed(const std::string& path, const std::string& name) {
    ModelSpec spec = tinyModelSpec();
    for (auto& [key, value] : spec.file.metadata) {
        if (key == "general.name") {
            value = GgufValue::fromString(name);
        }
    }
    if (!spec.file.getString("general.name")) {
        spec.file.metadata.emplace_back("general.name", GgufValue::fromString(name));
    }
    spec.file.rebuildIndex();
    const auto written = writeSpecAsGguf(spec, path);
    ASSERT_TRUE(written.ok()) << written.error().message;
}

// The tiny model split into `count` parts the way llama.cpp's gguf-split writes them: full
// metadata in part 1, split.no / split.count (uint16) and split.tensors.count (int32) in
// every part, the tensors dealt out in order. Returns the part paths.
inline std::vector<std::string> writeSplitTinyModel(const std::string& prefix, std::uint32_t count) {
    const auto whole = ggufFileForSpec(tinyModelSpec());
    EXPECT_TRUE(whole.ok());
    std::vector<std::string> paths;
    if (!whole.ok()) {
        return paths;
    }
    const auto& tensors = whole->tensors;
    const std::size_t perPart = (tensors.size() + count - 1) / count;
    for (std::uint32_t index = 0; index < count; ++index) {
        GgufBuilder part;
        if (index == 0) {
            for (const auto& [key, value] : whole->metadata) {
                part.set(key, value);
            }
        }
        part.set("split.no", GgufValue::fromUint(index, GgufValueType::Uint16));
        part.set("split.count", GgufValue::fromUint(count, GgufValueType::Uint16));
        part.setInt32("split.tensors.count", static_cast<std::int32_t>(tensors.size()));
        for (std::size_t t = index * perPart; t < std::min(tensors.size(), (index + 1) * perPart); ++t) {
            const auto& tensor = tensors[t];
            part.addTensor(tensor.name, tensor.type,
                           std::vector<std::uint64_t>(tensor.shape.begin(),
                                                      tensor.shape.begin() + tensor.dimensionCount));
        }
        paths.push_back(ggufSplitPartPath(prefix, index + 1, count));
        EXPECT_EQ(writeGguf(paths.back(), part.build()), "");
    }
    return paths;
}

// A CLIP projector header as llama.cpp's convert_hf_to_gguf.py --mmproj writes it.
inline void writeProjector(const std::string& path) {
    GgufBuilder projector("clip");
    projector.setString("general.type", "mmproj");
    projector.setBool("clip.has_vision_encoder", true);
    projector.addTensor("v.patch_embd.weight", GgmlType::F16, {14, 14, 3, 64});
    EXPECT_EQ(writeGguf(path, projector.build()), "");
}

// Bytes that are not GGUF (the reader says gguf.bad-magic).
inline void writeCorruptFile(const std::string& path) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << "this is not a GGUF file, just text with a .gguf name\n";
}

inline void writeText(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
}

} // namespace llamafit::test
