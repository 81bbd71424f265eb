#include "core/library/libraryscan.h"

#include "core/common/utf8path.h"
#include "core/gguf/ggufreader.h"
#include "core/gguf/ggufsplit.h"
#include "core/library/librarywalk.h"
#include "core/library/ollamamanifest.h"
#include "core/model/loaderchecks.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

std::string canonicalOr(const std::string& path) {
    std::error_code ec;
    const fs::path canonical = fs::canonical(pathFromUtf8(path), ec);
    return ec ? path : utf8FromPath(canonical);
}

std::uint64_t sizeOnDisk(const std::vector<std::string>& paths) {
    std::uint64_t total = 0;
    for (const auto& path : paths) {
        std::error_code ec;
        const auto bytes = fs::file_size(pathFromUtf8(path), ec); // follows symlinks (HF snapshot -> blob)
        total += ec ? 0 : static_cast<std::uint64_t>(bytes);
    }
    return total;
}

// Reads one model (every part) into an entry. `projector` is set when the header says the
// file is an mmproj; the entry is then not listed.
LibraryEntry readEntry(const LibraryRoot& root, std::string name, std::vector<std::string> parts,
                       bool& projector) {
    LibraryEntry entry;
    entry.path = parts.front();
    entry.name = std::move(name);
    entry.root = root;
    entry.partPaths = std::move(parts);
    entry.summary.displayName = entry.name;
    entry.summary.fileBytes = sizeOnDisk(entry.partPaths);
    const auto file = readGgufModel(entry.path);
    if (!file.ok()) {
        entry.error = file.error();
        return entry;
    }
    if (isProjectorHeader(*file)) {
        projector = true;
        return entry;
    }
    entry.summary.architecture = file->getString("general.architecture").value_or(std::string());
    // A file llama.cpp's loader refuses is listed with the loader's reason, not as a model.
    const auto info = interpretLoadableModel(*file);
    if (!info.ok()) {
        entry.error = info.error();
        return entry;
    }
    entry.summary = summariseModel(*info, *file);
    if (entry.summary.displayName.empty()) {
        entry.summary.displayName = entry.name;
    }
    return entry;
}

class Scan {
  public:
    Scan(std::stop_token stop, const LibraryScanCallbacks& callbacks)
        : m_stop(std::move(stop)), m_callbacks(callbacks) {}

    bool stopped() {
        if (m_stop.stop_requested()) {
            m_result.cancelled = true;
        }
        return m_result.cancelled;
    }

    void found(std::uint64_t count, const std::string& path) {
        m_result.filesFound += count;
        report(path);
    }

    void scanFolder(const LibraryRoot& root, const LibraryFolder& folder) {
        std::vector<std::string> projectors;
        std::vector<std::vector<std::string>> models; // each: the parts, in part order
        std::map<std::pair<std::string, std::uint32_t>, std::map<std::uint32_t, std::string>> splits;
        for (const auto& file : folder.files) {
            if (isProjectorFileName(utf8FromPath(pathFromUtf8(file).filename()))) {
                projectors.push_back(file);
                done(file);
            } else if (const auto split = parseGgufSplitName(file)) {
                splits[{split->prefix, split->count}][split->number] = file;
            } else {
                models.push_back({file});
            }
        }
        // A cancelled folder still sends the entries it read.
        std::vector<LibraryEntry> entries;
        for (const auto& [key, parts] : splits) {
            if (stopped()) {
                break;
            }
            scanSplit(root, key.first, key.second, parts, entries, projectors);
        }
        for (auto& parts : models) {
            if (stopped()) {
                break;
            }
            std::string name = libraryEntryName(root, parts.front());
            scanModel(root, std::move(name), std::move(parts), entries, projectors);
        }
        for (auto& entry : entries) {
            entry.mmprojPaths = projectors;
        }
        m_result.projectorCount += projectors.size();
        send(std::move(entries));
    }

    void scanOllamaManifest(const LibraryRoot& root, const OllamaManifestFile& manifestFile) {
        std::vector<LibraryEntry> entries;
        std::ifstream in(pathFromUtf8(manifestFile.path), std::ios::binary);
        std::stringstream text;
        text << in.rdbuf();
        const auto manifest = parseOllamaManifest(text.str());
        if (!manifest.ok()) {
            LibraryEntry entry;
            entry.path = manifestFile.path;
            entry.name = manifestFile.name;
            entry.root = root;
            entry.summary.displayName = manifestFile.name;
            entry.error = manifest.error();
            entries.push_back(std::move(entry));
        } else {
            const std::string blob = ollamaBlobPath(root.path, manifest->modelDigest);
            std::vector<std::string> projectors;
            for (const auto& digest : manifest->projectorDigests) {
                projectors.push_back(ollamaBlobPath(root.path, digest));
            }
            if (m_seen.insert(canonicalOr(blob)).second) {
                bool projector = false;
                LibraryEntry entry = readEntry(root, manifestFile.name, {blob}, projector);
                entry.mmprojPaths = projectors;
                m_result.projectorCount += projectors.size();
                entries.push_back(std::move(entry));
            }
        }
        done(manifestFile.path);
        send(std::move(entries));
    }

    LibraryScanResult take() { return std::move(m_result); }
    std::vector<Error>& errors() { return m_result.errors; }

  private:
    void scanSplit(const LibraryRoot& root, const std::string& prefix, std::uint32_t count,
                   const std::map<std::uint32_t, std::string>& present, std::vector<LibraryEntry>& entries,
                   std::vector<std::string>& projectors) {
        std::vector<std::string> parts;
        std::string missing;
        for (std::uint32_t number = 1; number <= count; ++number) {
            const auto part = present.find(number);
            if (part != present.end()) {
                parts.push_back(part->second);
            } else {
                missing += (missing.empty() ? "" : ", ") + ggufSplitPartPath(prefix, number, count);
            }
        }
        if (missing.empty()) {
            std::string name = libraryEntryName(root, parts.front());
            scanModel(root, std::move(name), std::move(parts), entries, projectors);
            return;
        }
        // llama.cpp src/llama-model-loader.cpp refuses a split model with a part missing.
        LibraryEntry entry;
        entry.path = parts.front();
        entry.name = libraryEntryName(root, parts.front());
        entry.root = root;
        entry.partPaths = parts;
        entry.summary.displayName = entry.name;
        entry.summary.fileBytes = sizeOnDisk(parts);
        entry.error = makeError("gguf.split-part-missing",
                                "split model of " + std::to_string(count) + " parts: missing " + missing);
        for (const auto& part : parts) {
            done(part);
        }
        if (m_seen.insert(canonicalOr(entry.path)).second) {
            entries.push_back(std::move(entry));
        }
    }

    void scanModel(const LibraryRoot& root, std::string name, std::vector<std::string> parts,
                   std::vector<LibraryEntry>& entries, std::vector<std::string>& projectors) {
        const std::string first = parts.front();
        if (!m_seen.insert(canonicalOr(first)).second) {
            for (const auto& part : parts) {
                done(part);
            }
            return;
        }
        bool projector = false;
        LibraryEntry entry = readEntry(root, std::move(name), parts, projector);
        for (const auto& part : parts) {
            done(part);
        }
        if (projector) {
            projectors.push_back(first);
        } else {
            entries.push_back(std::move(entry));
        }
    }

    void done(const std::string& path) {
        ++m_result.filesDone;
        report(path);
    }

    void report(const std::string& path) {
        if (m_callbacks.progress) {
            m_callbacks.progress({m_result.filesDone, m_result.filesFound, path});
        }
    }

    void send(std::vector<LibraryEntry> entries) {
        if (entries.empty()) {
            return;
        }
        m_result.entries.insert(m_result.entries.end(), entries.begin(), entries.end());
        if (m_callbacks.entries) {
            m_callbacks.entries(std::move(entries));
        }
    }

    std::stop_token m_stop;
    const LibraryScanCallbacks& m_callbacks;
    LibraryScanResult m_result;
    std::set<std::string> m_seen; // canonical paths of the models listed
};

struct RootWork {
    const LibraryRoot* root = nullptr;
    LibraryWalk walk;
    std::vector<OllamaManifestFile> manifests;
};

} // namespace

LibraryScanResult scanLibrary(const LibraryRoots& roots, std::stop_token stop,
                              const LibraryScanCallbacks& callbacks) {
    Scan scan(stop, callbacks);
    // Walk every root first so the progress has a total before the headers are read.
    std::vector<RootWork> work;
    for (const auto& root : roots) {
        if (scan.stopped()) {
            return scan.take();
        }
        RootWork item{&root, {}, {}};
        if (root.kind == LibraryRootKind::Ollama) {
            item.manifests = findOllamaManifests(root.path, scan.errors(), stop);
            scan.found(item.manifests.size(), root.path);
        } else {
            std::uint64_t reported = 0;
            item.walk = walkLibraryRoot(root.path, stop,
                                        [&scan, &reported](std::uint64_t total, const std::string& dir) {
                                            scan.found(total - reported, dir);
                                            reported = total;
                                        });
            auto& errors = scan.errors();
            errors.insert(errors.end(), item.walk.errors.begin(), item.walk.errors.end());
        }
        work.push_back(std::move(item));
    }
    for (const auto& item : work) {
        for (const auto& folder : item.walk.folders) {
            if (scan.stopped()) {
                return scan.take();
            }
            scan.scanFolder(*item.root, folder);
        }
        for (const auto& manifest : item.manifests) {
            if (scan.stopped()) {
                return scan.take();
            }
            scan.scanOllamaManifest(*item.root, manifest);
        }
    }
    scan.stopped();
    return scan.take();
}

std::string libraryEntryName(const LibraryRoot& root, const std::string& modelPath) {
    std::string file = utf8FromPath(pathFromUtf8(modelPath).filename());
    if (const auto split = parseGgufSplitName(modelPath)) {
        file = utf8FromPath(pathFromUtf8(split->prefix).filename());
    } else if (file.size() > 5) {
        file = utf8FromPath(pathFromUtf8(file).stem());
    }
    if (root.kind != LibraryRootKind::HfHubCache) {
        return file;
    }
    // huggingface_hub layout: models--<org>--<repo>/snapshots/<commit>/<file, maybe in folders>.
    const fs::path relative = pathFromUtf8(modelPath).lexically_relative(pathFromUtf8(root.path));
    std::vector<std::string> parts;
    for (const auto& part : relative) {
        parts.push_back(utf8FromPath(part));
    }
    constexpr std::string_view repoPrefix = "models--";
    if (parts.size() < 4 || parts[0].rfind(repoPrefix, 0) != 0 || parts[1] != "snapshots") {
        return file;
    }
    std::string repo = parts[0].substr(repoPrefix.size());
    if (const auto separator = repo.find("--"); separator != std::string::npos) {
        repo.replace(separator, 2, "/");
    }
    std::string inner;
    for (std::size_t i = 3; i + 1 < parts.size(); ++i) {
        inner += parts[i] + "/";
    }
    return repo + " (" + inner + file + ")";
}

} // namespace llamafit
