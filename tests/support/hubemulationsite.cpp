#include "tests/support/hubemulationsite.h"

#include <QByteArray>
#include <QCryptographicHash>
#include <QFile>
#include <QString>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <system_error>

namespace llamafit::test {
namespace {

namespace fs = std::filesystem;
using Json =
    nlohmann::ordered_json; // the Hub's key order (type, oid, size, path, lfs), for people reading it

bool isHex(const std::string& text, std::size_t length) {
    return text.size() == length && std::all_of(text.begin(), text.end(), [](char c) {
               return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
           });
}

std::string lowerCase(std::string text) {
    std::transform(text.begin(), text.end(), text.begin(),
                   [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; });
    return text;
}

bool isNameCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
}

// "org/name" in the Hub's alphabet (huggingface_hub validate_repo_id): it goes into URLs, file
// names and nginx.conf unquoted.
bool isServableRepoId(const std::string& repoId) {
    const auto slash = repoId.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == repoId.size() ||
        repoId.find('/', slash + 1) != std::string::npos || repoId.find("..") != std::string::npos) {
        return false;
    }
    return std::all_of(repoId.begin(), repoId.end(), [](char c) { return c == '/' || isNameCharacter(c); });
}

// '/'-separated segments, none empty, "." or "..", no backslash or control character: a path
// that names one file under a folder (anything else, UTF-8 and spaces included, is allowed).
bool isServableRepoPath(const std::string& path) {
    if (path.empty()) {
        return false;
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        const auto end = std::min(path.find('/', start), path.size());
        const std::string segment = path.substr(start, end - start);
        if (segment.empty() || segment == "." || segment == "..") {
            return false;
        }
        start = end + 1;
    }
    return std::none_of(path.begin(), path.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte < 0x20 || byte == 0x7f || c == '\\';
    });
}

std::string hex(const QByteArray& digest) {
    return digest.toHex().toStdString();
}

// git's object id of a blob: sha1("blob <size>\0" + bytes).
QByteArray gitBlobHeader(std::uint64_t size) {
    const std::string header = "blob " + std::to_string(size);
    return QByteArray(header.c_str(), static_cast<qsizetype>(header.size() + 1)); // with its NUL
}

// The Git LFS pointer the repo's git tree holds for an LFS file (git-lfs spec v1): its git blob
// id is the tree's "oid" and its length the tree's lfs.pointerSize.
std::string lfsPointer(const std::string& sha256, std::uint64_t size) {
    return "version https://git-lfs.github.com/spec/v1\noid sha256:" + sha256 + "\nsize " +
           std::to_string(size) + "\n";
}

Result<bool> hashFile(HubSiteFile& file, bool wantSha256) {
    QFile content(QString::fromStdString(file.contentPath));
    if (!content.open(QIODevice::ReadOnly)) {
        return makeError("test.io-failed",
                         "cannot read " + file.contentPath + ": " + content.errorString().toStdString());
    }
    QCryptographicHash sha256(QCryptographicHash::Sha256);
    QCryptographicHash sha1(QCryptographicHash::Sha1);
    if (!file.lfs) {
        sha1.addData(gitBlobHeader(file.size));
    }
    while (!content.atEnd()) {
        const QByteArray chunk = content.read(1 << 20);
        if (chunk.isEmpty()) {
            return makeError("test.io-failed",
                             "cannot read " + file.contentPath + ": " + content.errorString().toStdString());
        }
        if (wantSha256) {
            sha256.addData(chunk);
        }
        if (!file.lfs) {
            sha1.addData(chunk);
        }
    }
    if (wantSha256) {
        file.sha256 = hex(sha256.result());
    }
    if (!file.lfs) {
        file.gitOid = hex(sha1.result());
    }
    return true;
}

Result<HubSiteFile> describeFile(const HubFixtureRepo& repo, const HubFixtureFile& fixture) {
    const std::string where = repo.repoId + " " + fixture.repoPath;
    if (!isServableRepoPath(fixture.repoPath)) {
        return makeError("test.bad-fixture", where + ": not a path a repo can hold (empty or '.' segment, "
                                                     "backslash or control character)");
    }
    HubSiteFile file;
    file.repoPath = fixture.repoPath;
    std::error_code ec;
    file.contentPath = fs::absolute(fixture.contentPath, ec).lexically_normal().string();
    const auto size = fs::file_size(file.contentPath, ec);
    if (ec || !fs::is_regular_file(file.contentPath, ec)) {
        return makeError("test.bad-fixture",
                         where + ": content " + fixture.contentPath + " is not a readable file");
    }
    file.size = size;
    const bool gguf =
        file.repoPath.size() >= 5 && lowerCase(file.repoPath.substr(file.repoPath.size() - 5)) == ".gguf";
    file.lfs = fixture.lfs.value_or(gguf);
    if (!fixture.sha256.empty() && !isHex(fixture.sha256, 64)) {
        return makeError("test.bad-fixture",
                         where + ": sha256 '" + fixture.sha256 + "' is not 64 hex digits");
    }
    file.sha256 = lowerCase(fixture.sha256);
    // An LFS file with its sha256 given is never read: that is what makes a sparse file of
    // several GB free. A git file is read for its blob id (git hashes the content itself).
    if (!file.lfs || file.sha256.empty()) {
        auto hashed = hashFile(file, file.sha256.empty());
        if (!hashed) {
            return hashed.error();
        }
    }
    if (file.lfs) {
        const std::string pointer = lfsPointer(file.sha256, file.size);
        file.pointerSize = pointer.size();
        QCryptographicHash sha1(QCryptographicHash::Sha1);
        sha1.addData(gitBlobHeader(pointer.size()));
        sha1.addData(QByteArray(pointer.c_str(), static_cast<qsizetype>(pointer.size())));
        file.gitOid = hex(sha1.result());
    }
    return file;
}

// Every folder that holds a file of the repo ("BF16", "a/b" and "a" for "a/b/c.gguf").
std::set<std::string> directoriesOf(const HubSiteRepo& repo) {
    std::set<std::string> directories;
    for (const HubSiteFile& file : repo.files) {
        for (auto slash = file.repoPath.find('/'); slash != std::string::npos;
             slash = file.repoPath.find('/', slash + 1)) {
            directories.insert(file.repoPath.substr(0, slash));
        }
    }
    return directories;
}

// A folder's "oid" in the tree answer. On the Hub it is the git tree id; no client reads it, so
// any stable 40 hex does.
std::string directoryOid(const HubSiteRepo& repo, const std::string& directory) {
    const std::string seed = repo.repoId + "\n" + repo.commit + "\n" + directory;
    return hex(QCryptographicHash::hash(QByteArray(seed.c_str(), static_cast<qsizetype>(seed.size())),
                                        QCryptographicHash::Sha1));
}

struct TreeEntry {
    bool directory = false;
    std::string path;
    Json json;
};

// The repo's folders, then its files, each by path (bytewise). That is how the Hub answered in
// huggingface_hub issue #3329: a listing of the root gave the folders by name and then the files,
// and the first page of the same listing with recursive=true held nothing but folders, deep ones
// included. huggingface_hub documents the order as not guaranteed (hf_api.py list_repo_tree); it
// matters to llama.cpp's -hf, which takes the first match in tree order (model-sourcing.md section 1).
std::vector<TreeEntry> treeEntries(const HubSiteRepo& repo) {
    std::vector<TreeEntry> entries;
    for (const std::string& directory : directoriesOf(repo)) {
        Json json;
        json["type"] = "directory";
        json["oid"] = directoryOid(repo, directory);
        json["size"] = 0;
        json["path"] = directory;
        entries.push_back({true, directory, std::move(json)});
    }
    for (const HubSiteFile& file : repo.files) {
        Json json;
        json["type"] = "file";
        json["oid"] = file.gitOid;
        json["size"] = file.size;
        json["path"] = file.repoPath;
        if (file.lfs) {
            json["lfs"] = Json{{"oid", file.sha256}, {"size", file.size}, {"pointerSize", file.pointerSize}};
        }
        entries.push_back({false, file.repoPath, std::move(json)});
    }
    // std::string compares as unsigned bytes, so a UTF-8 name sorts after every ASCII one.
    std::sort(entries.begin(), entries.end(), [](const TreeEntry& a, const TreeEntry& b) {
        return a.directory != b.directory ? a.directory : a.path < b.path;
    });
    return entries;
}

// GET /api/models/{repo}/tree/{rev}[/{directory}][?recursive=true]: what is under the folder
// ("" = the root), all of it or one level.
Json treeListing(const std::vector<TreeEntry>& entries, const std::string& directory, bool recursive) {
    Json listing = Json::array();
    const std::string prefix = directory.empty() ? "" : directory + "/";
    for (const TreeEntry& entry : entries) {
        if (entry.path.compare(0, prefix.size(), prefix) != 0 || entry.path.size() == prefix.size()) {
            continue;
        }
        if (recursive || entry.path.find('/', prefix.size()) == std::string::npos) {
            listing.push_back(entry.json);
        }
    }
    return listing;
}

Result<bool> writeText(const fs::path& path, const std::string& text) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (ec || !out) {
        return makeError("test.io-failed", "cannot write " + path.string());
    }
    return true;
}

// A link to a content file, named by its sha256 (two fixture files with the same bytes share it).
Result<bool> linkContent(const fs::path& folder, const HubSiteFile& file) {
    std::error_code ec;
    fs::create_directories(folder, ec);
    const fs::path link = folder / file.sha256;
    if (fs::is_symlink(link, ec)) {
        return true;
    }
    fs::create_symlink(file.contentPath, link, ec);
    if (ec) {
        return makeError("test.io-failed",
                         "cannot link " + link.string() + " to " + file.contentPath + ": " + ec.message());
    }
    return true;
}

Result<bool> writeRepo(const fs::path& work, const HubSiteRepo& repo) {
    const fs::path apiRoot = work / "www" / "api" / "models";
    // GET /api/models/{repo}/refs: llama.cpp b11669 reads branches[].targetCommit of "main"
    // (common/hf-cache.cpp get_repo_commit, model-sourcing.md section 1).
    Json refs;
    refs["branches"] =
        Json::array({Json{{"name", "main"}, {"ref", "refs/heads/main"}, {"targetCommit", repo.commit}}});
    refs["tags"] = Json::array();
    refs["converts"] = Json::array();
    refs["pullRequests"] = nullptr;
    if (auto written = writeText(apiRoot / repo.repoId / "refs.json", refs.dump()); !written) {
        return written;
    }

    const std::vector<TreeEntry> entries = treeEntries(repo);
    std::vector<std::string> folders{""};
    for (const std::string& directory : directoriesOf(repo)) {
        folders.push_back(directory);
    }
    for (const std::string& revision : {std::string("main"), repo.commit}) {
        for (const std::string& folder : folders) {
            const fs::path base =
                apiRoot / repo.repoId / "tree" / (folder.empty() ? revision : revision + "/" + folder);
            for (const bool recursive : {false, true}) {
                const std::string name = base.string() + (recursive ? ".recursive.json" : ".json");
                if (auto written = writeText(name, treeListing(entries, folder, recursive).dump());
                    !written) {
                    return written;
                }
            }
        }
    }

    // GET /api/models/{repo}?blobs=true: the siblings with sizes and LFS hashes (hf_api.py
    // model_info, model-sourcing.md section 1). Always with blobs: the query is not read.
    Json siblings = Json::array();
    for (const TreeEntry& entry : entries) {
        if (entry.json["type"] != "file") {
            continue;
        }
        Json sibling{{"rfilename", entry.path}, {"size", entry.json["size"]}, {"blobId", entry.json["oid"]}};
        if (entry.json.contains("lfs")) {
            const Json& lfs = entry.json["lfs"];
            sibling["lfs"] =
                Json{{"sha256", lfs["oid"]}, {"size", lfs["size"]}, {"pointerSize", lfs["pointerSize"]}};
        }
        siblings.push_back(std::move(sibling));
    }
    Json info{{"id", repo.repoId}, {"modelId", repo.repoId},        {"sha", repo.commit},  {"private", false},
              {"disabled", false}, {"tags", Json::array({"gguf"})}, {"siblings", siblings}};
    info["gated"] = repo.gated ? Json("manual") : Json(false);
    if (auto written = writeText(apiRoot / (repo.repoId + ".json"), info.dump()); !written) {
        return written;
    }

    for (const HubSiteFile& file : repo.files) {
        if (auto linked = linkContent(work / (file.lfs ? "cdn/cdn" : "blobs"), file); !linked) {
            return linked;
        }
    }
    return true;
}

} // namespace

Result<std::vector<HubSiteRepo>> describeRepos(const std::vector<HubFixtureRepo>& repos) {
    std::vector<HubSiteRepo> described;
    std::set<std::string> repoIds;
    for (const HubFixtureRepo& fixture : repos) {
        if (!isServableRepoId(fixture.repoId)) {
            return makeError("test.bad-fixture",
                             "repo id '" + fixture.repoId +
                                 "' is not org/name in letters, digits, '-', '_' and '.'");
        }
        if (!repoIds.insert(lowerCase(fixture.repoId)).second) {
            return makeError("test.bad-fixture", "repo " + fixture.repoId + " is listed twice");
        }
        if (!isHex(fixture.commit, 40)) {
            return makeError("test.bad-fixture",
                             fixture.repoId + ": commit '" + fixture.commit + "' is not 40 hex digits");
        }
        HubSiteRepo repo{fixture.repoId, lowerCase(fixture.commit), fixture.gated, {}};
        std::set<std::string> paths;
        for (const HubFixtureFile& fixtureFile : fixture.files) {
            auto file = describeFile(fixture, fixtureFile);
            if (!file) {
                return file.error();
            }
            if (!paths.insert(file->repoPath).second) {
                return makeError("test.bad-fixture",
                                 fixture.repoId + " " + file->repoPath + " is listed twice");
            }
            repo.files.push_back(std::move(*file));
        }
        // A file cannot also be a folder ("a" and "a/b").
        for (const std::string& directory : directoriesOf(repo)) {
            if (paths.count(directory) != 0) {
                return makeError("test.bad-fixture",
                                 fixture.repoId + " " + directory + " is both a file and a folder");
            }
        }
        described.push_back(std::move(repo));
    }
    return described;
}

std::vector<HubSearchEntry> searchEntriesFor(const std::vector<std::string>& ids,
                                             const std::vector<HubSiteRepo>& repos) {
    static const char* const kArchitectures[] = {"llama", "qwen3", "gemma3"};
    std::vector<HubSearchEntry> entries;
    const std::uint64_t count = ids.size();
    for (std::uint64_t i = 0; i < count; ++i) {
        HubSearchEntry entry;
        entry.id = ids[i];
        // Falling downloads, as for sort=downloads; the rest only has to differ between entries.
        entry.downloads = 1000 * (count - i);
        entry.likes = 10 * (count - i) + 1;
        entry.architecture = kArchitectures[i % 3];
        entry.parameters = 494'032'768 + i * 1'000'000'000;
        entry.contextLength = std::uint64_t{32768} << (i % 3);
        for (const HubSiteRepo& repo : repos) {
            entry.gated = entry.gated || (repo.repoId == entry.id && repo.gated);
        }
        entries.push_back(std::move(entry));
    }
    return entries;
}

std::size_t searchPageCount(std::size_t entries, std::size_t pageSize) {
    if (pageSize == 0 || entries == 0) {
        return 1;
    }
    return (entries + pageSize - 1) / pageSize;
}

Result<bool> writeSite(const std::string& workDirectory, const std::vector<HubSiteRepo>& repos,
                       const std::vector<HubSearchEntry>& search, std::size_t pageSize) {
    const fs::path work(workDirectory);
    std::error_code ec;
    for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
        fs::create_directories(work / "temp" / temp, ec);
    }
    fs::create_directories(work / "cdn" / "cdn", ec);
    fs::create_directories(work / "blobs", ec);
    if (ec) {
        return makeError("test.io-failed",
                         "cannot make folders under " + workDirectory + ": " + ec.message());
    }
    for (const HubSiteRepo& repo : repos) {
        if (auto written = writeRepo(work, repo); !written) {
            return written;
        }
    }
    // GET /api/models?search=...&expand[]=gguf&expand[]=gated&expand[]=downloads (model-sourcing.md
    // section 1): id, downloads, likes, gated ("manual" or false) and gguf.{total, architecture,
    // context_length}.
    const std::size_t pages = searchPageCount(search.size(), pageSize);
    const std::size_t perPage = pageSize == 0 ? search.size() : pageSize;
    for (std::size_t page = 0; page < pages; ++page) {
        Json answer = Json::array();
        for (std::size_t i = page * perPage; i < std::min(search.size(), (page + 1) * perPage); ++i) {
            const HubSearchEntry& entry = search[i];
            Json model{{"id", entry.id},
                       {"modelId", entry.id},
                       {"likes", entry.likes},
                       {"downloads", entry.downloads},
                       {"private", false}};
            model["gated"] = entry.gated ? Json("manual") : Json(false);
            model["tags"] = Json::array({"gguf"});
            model["gguf"] = Json{{"total", entry.parameters},
                                 {"architecture", entry.architecture},
                                 {"context_length", entry.contextLength}};
            answer.push_back(std::move(model));
        }
        const fs::path name =
            work / "www" / "api" / "search" / ("page-" + std::to_string(page + 1) + ".json");
        if (auto written = writeText(name, answer.dump()); !written) {
            return written;
        }
    }
    return true;
}

} // namespace llamafit::test
