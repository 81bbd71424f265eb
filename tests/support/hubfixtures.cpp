// Fixture repos for the Hub emulation; see hubfixtures.h.

#include "tests/support/hubfixtures.h"

#include "core/gguf/ggufsplit.h"
#include "tests/support/ggufwriter.h"
#include "tests/support/modelfiles.h"

#include <QCryptographicHash>
#include <QFile>
#include <QProcess>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>

namespace llamafit::test {

namespace fs = std::filesystem;

Result<std::vector<std::string>> writeSplitGguf(const GgufFile& file, const std::string& prefix,
                                                std::uint32_t parts) {
    std::vector<std::string> paths;
    const std::size_t perPart = (file.tensors.size() + parts - 1) / parts;
    for (std::uint32_t index = 0; index < parts; ++index) {
        GgufFile part;
        if (index == 0) {
            part.metadata = file.metadata;
        }
        part.metadata.emplace_back("split.no", GgufValue::fromUint(index, GgufValueType::Uint16));
        part.metadata.emplace_back("split.count", GgufValue::fromUint(parts, GgufValueType::Uint16));
        part.metadata.emplace_back(
            "split.tensors.count",
            GgufValue::fromInt(static_cast<std::int64_t>(file.tensors.size()), GgufValueType::Int32));
        const std::size_t begin = std::min(file.tensors.size(), index * perPart);
        const std::size_t end = std::min(file.tensors.size(), begin + perPart);
        part.tensors.assign(file.tensors.begin() + static_cast<std::ptrdiff_t>(begin),
                            file.tensors.begin() + static_cast<std::ptrdiff_t>(end));
        part.alignment = file.alignment;
        layOutOffsets(part);
        part.rebuildIndex();
        paths.push_back(ggufSplitPartPath(prefix, index + 1, parts));
        GgufWriteOptions options;
        options.fill = [](const GgufTensorInfo&, std::span<std::uint8_t> data) {
            std::fill(data.begin(), data.end(), std::uint8_t{0x11});
        };
        if (std::string error = writeGguf(paths.back(), part, options); !error.empty()) {
            return makeError("test.write-failed", error);
        }
    }
    return paths;
}

Result<std::vector<HubFixtureFile>> tinyHubRepoFiles(const std::string& dir) {
    std::vector<HubFixtureFile> files;
    const ModelSpec spec = tinyModelSpec();
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::optional<GgmlType>>>{{"Tiny-F32.gguf", std::nullopt},
                                                                      {"Tiny-Q8_0.gguf", GgmlType::Q8_0},
                                                                      {"Tiny-Q4_0.gguf", GgmlType::Q4_0}}) {
        ModelFileOptions options;
        options.weightType = type;
        options.realWeights = true;
        if (auto written = writeSpecAsGguf(spec, dir + "/" + name, options); !written) {
            return written.error();
        }
        files.push_back({name, dir + "/" + name, "", std::nullopt});
    }
    ModelFileOptions f16;
    f16.weightType = GgmlType::F16;
    const auto whole = ggufFileForSpec(spec, f16);
    if (!whole) {
        return whole.error();
    }
    fs::create_directories(dir + "/F16");
    auto parts = writeSplitGguf(*whole, dir + "/F16/Tiny-F16", 2);
    if (!parts) {
        return parts.error();
    }
    for (const std::string& path : *parts) {
        files.push_back({"F16/" + fs::path(path).filename().string(), path, "", std::nullopt});
    }
    // The projector the live projector test pairs with the tiny model (its n_embd): sparse here.
    const auto projector = loadModelSpecFile(shapesDirectory() + "/mmproj/gemma3-mmproj.json");
    if (!projector) {
        return projector.error();
    }
    if (auto written = writeSpecAsGguf(*projector, dir + "/mmproj-F16.gguf"); !written) {
        return written.error();
    }
    files.push_back({"mmproj-F16.gguf", dir + "/mmproj-F16.gguf", "", std::nullopt});
    std::ofstream(dir + "/README.md") << "# Tiny\n";
    files.push_back({"README.md", dir + "/README.md", "", std::nullopt});
    return files;
}

Result<std::string> writeLlamaReleaseSite(const HubEmulation& hub, const std::string& serverWrapper,
                                          const std::string& tag, const std::string& name,
                                          const std::string& digest) {
    const std::string archiveName = "llama-" + tag + "-bin-ubuntu-x64.tar.gz";
    const std::string download = hub.staticDirectory() + "/download/" + tag;
    const std::string archive = download + "/" + archiveName;
    std::error_code ec;
    fs::create_directories(download, ec);
    if (!fs::exists(archive)) {
        QProcess tar;
        // S: the prefix goes on member names, not on symbolic links' targets (the root's ld.so link).
        tar.start(QStringLiteral("tar"),
                  {QStringLiteral("--transform"), QString::fromStdString("s,^,llama-" + tag + "/,S"),
                   QStringLiteral("-C"),
                   QString::fromStdString(fs::path(serverWrapper).parent_path().string()),
                   QStringLiteral("-I"), QStringLiteral("gzip -1"), QStringLiteral("-cf"),
                   QString::fromStdString(archive), QStringLiteral("llama-server"), QStringLiteral("root")});
        if (!tar.waitForFinished(300000) || tar.exitCode() != 0) {
            return makeError("test.write-failed",
                             "packing the release failed: " + tar.readAllStandardError().toStdString());
        }
    }
    std::string sha256 = digest;
    if (sha256.empty()) {
        QFile file(QString::fromStdString(archive));
        if (!file.open(QIODevice::ReadOnly)) {
            return makeError("test.read-failed", archive);
        }
        QCryptographicHash hash(QCryptographicHash::Sha256);
        hash.addData(&file);
        sha256 = hash.result().toHex().toStdString();
    }
    const std::string url = hub.cdnOrigin() + "/static/download/" + tag + "/" + archiveName;
    const nlohmann::json listing{{"tag_name", tag},
                                 {"assets",
                                  {{{"name", archiveName},
                                    {"size", fs::file_size(archive)},
                                    {"browser_download_url", url},
                                    {"digest", "sha256:" + sha256}},
                                   {{"name", "llama-" + tag + "-bin-win-vulkan-x64.zip"},
                                    {"size", 1},
                                    {"browser_download_url", url}}}}};
    const std::string folder = hub.staticDirectory() + "/repos/ggml-org/llama.cpp/releases/" + name;
    fs::create_directories(folder, ec);
    std::ofstream(folder + "/latest") << listing.dump();
    return hub.cdnOrigin() + "/static/repos/ggml-org/llama.cpp/releases/" + name + "/latest";
}

} // namespace llamafit::test
