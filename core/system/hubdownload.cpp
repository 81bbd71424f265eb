// Downloads into the shared hub cache; see hubdownload.h.

#include "core/system/hubdownload.h"

#include "core/common/utf8path.h"
#include "core/hub/hubendpoint.h"

#include <QCryptographicHash>
#include <QElapsedTimer>
#include <QFile>
#include <QStorageInfo>

#include <filesystem>
#include <system_error>

namespace llamafit {

namespace {

constexpr int kResumeAttempts = 5;
constexpr std::uint64_t kDiskHeadroom = 64ULL * 1024 * 1024; // what the rest of the system keeps
constexpr qint64 kHashChunk = 4 * 1024 * 1024;

namespace fs = std::filesystem;

Error cacheWriteError(const std::string& path, const std::string& what) {
    return makeError("hub.cache-write", path + ": " + what);
}

std::uint64_t sizeOf(const std::string& path) {
    std::error_code ec;
    const auto size = fs::file_size(pathFromUtf8(path), ec);
    return ec ? 0 : static_cast<std::uint64_t>(size);
}

bool exists(const std::string& path) {
    std::error_code ec;
    return fs::exists(pathFromUtf8(path), ec);
}

// The sha256 of what is already in the partial file, so a resumed download hashes the whole.
bool hashExisting(const std::string& path, std::uint64_t bytes, QCryptographicHash& hash) {
    QFile file(QString::fromStdString(path));
    if (!file.open(QIODevice::ReadOnly)) {
        return false;
    }
    std::uint64_t done = 0;
    while (done < bytes) {
        const QByteArray chunk = file.read(std::min<qint64>(kHashChunk, static_cast<qint64>(bytes - done)));
        if (chunk.isEmpty()) {
            return false;
        }
        hash.addData(chunk);
        done += static_cast<std::uint64_t>(chunk.size());
    }
    return true;
}

// snapshots/<commit>/<path> -> ../../blobs/<sha256>, or a copy without symlinks.
std::optional<Error> linkSnapshot(const HubCacheLayout& layout, const std::string& commit,
                                  const HubRepoFile& file) {
    const fs::path link = pathFromUtf8(layout.snapshotPath(commit, file.path));
    std::error_code ec;
    fs::create_directories(link.parent_path(), ec);
    if (ec) {
        return cacheWriteError(utf8FromPath(link.parent_path()), ec.message());
    }
    if (fs::is_symlink(link, ec) || fs::exists(link, ec)) {
        fs::remove(link, ec);
    }
    fs::create_symlink(pathFromUtf8(snapshotLinkTarget(file.path, file.sha256)), link, ec);
    if (ec) {
        fs::copy_file(pathFromUtf8(layout.blobPath(file.sha256)), link, ec);
        if (ec) {
            return cacheWriteError(utf8FromPath(link), ec.message());
        }
    }
    return std::nullopt;
}

std::optional<Error> writeRef(const HubCacheLayout& layout, const std::string& branch,
                              const std::string& commit) {
    const std::string path = layout.refPath(branch);
    std::error_code ec;
    fs::create_directories(pathFromUtf8(path).parent_path(), ec);
    QFile ref(QString::fromStdString(path));
    if (ec || !ref.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
        ref.write(QByteArray::fromStdString(commit)) != static_cast<qint64>(commit.size())) {
        return cacheWriteError(path, "cannot write the branch's commit");
    }
    return std::nullopt;
}

struct Totals {
    std::uint64_t totalBytes = 0;
    std::uint64_t doneBefore = 0; // other files of the request, finished
};

Result<std::string> download(HubClient& client, const HubCacheLayout& layout, const std::string& commit,
                             const HubRepoFile& file, const HubProgressCallback& progress,
                             const Totals& totals) {
    if (!isSha256Hex(file.sha256)) {
        return makeError("hub.no-hash",
                         file.path + ": the Hub lists no sha256 for it, so it cannot be verified");
    }
    const std::string blob = layout.blobPath(file.sha256);
    const std::string partial = layout.partialBlobPath(file.sha256);
    HubDownloadProgress report{file.path, file.size, 0, totals.totalBytes, totals.doneBefore, 0};
    if (!(exists(blob) && sizeOf(blob) == file.size)) {
        std::error_code ec;
        fs::create_directories(pathFromUtf8(blob).parent_path(), ec);
        if (ec) {
            return cacheWriteError(utf8FromPath(pathFromUtf8(blob).parent_path()), ec.message());
        }
        std::uint64_t have = sizeOf(partial);
        if (have > file.size) {
            fs::remove(pathFromUtf8(partial), ec); // not this file's beginning: start over
            have = 0;
        }
        const QStorageInfo storage(QString::fromStdString(utf8FromPath(pathFromUtf8(blob).parent_path())));
        const std::uint64_t needed = file.size - have;
        if (storage.isValid() &&
            static_cast<std::uint64_t>(storage.bytesAvailable()) < needed + kDiskHeadroom) {
            return makeError("hub.disk-full",
                             file.path + " needs " + std::to_string(needed / (1024 * 1024)) +
                                 " MiB more and " + storage.rootPath().toStdString() + " has " +
                                 std::to_string(storage.bytesAvailable() / (1024 * 1024)) + " MiB free");
        }
        QCryptographicHash hash(QCryptographicHash::Sha256);
        if (have > 0 && !hashExisting(partial, have, hash)) {
            return cacheWriteError(partial, "cannot read the partial download back");
        }
        const std::string url = hubResolveUrl(client.options().endpoint, layout.repoId, commit, file.path);
        QElapsedTimer clock;
        clock.start();
        std::uint64_t thisRun = 0;
        for (int attempt = 0; have < file.size; ++attempt) {
            QFile out(QString::fromStdString(partial));
            if (!out.open(QIODevice::WriteOnly | QIODevice::Append)) {
                return cacheWriteError(partial, out.errorString().toStdString());
            }
            bool writeFailed = false;
            const std::uint64_t resumedAt = have;
            auto answer = client.get(
                url, {{"Range", "bytes=" + QByteArray::number(static_cast<qulonglong>(have)) + "-"}},
                [&](const QByteArray& chunk) {
                    if (have + static_cast<std::uint64_t>(chunk.size()) > file.size) {
                        return false; // longer than the tree says: the hash check names it
                    }
                    if (out.write(chunk) != chunk.size()) {
                        writeFailed = true;
                        return false;
                    }
                    hash.addData(chunk);
                    have += static_cast<std::uint64_t>(chunk.size());
                    thisRun += static_cast<std::uint64_t>(chunk.size());
                    if (progress) {
                        report.fileDone = have;
                        report.totalDone = totals.doneBefore + have;
                        const double seconds = static_cast<double>(clock.elapsed()) / 1000.0;
                        report.bytesPerSecond = seconds > 0 ? static_cast<double>(thisRun) / seconds : 0;
                        progress(report);
                    }
                    return true;
                },
                0);
            out.close();
            if (writeFailed) {
                return cacheWriteError(partial,
                                       "the disk refused a write (" + out.errorString().toStdString() + ")");
            }
            if (!answer) {
                const std::string& code = answer.error().code;
                const bool resumable = code == "hub.connection-lost" || code == "hub.timeout";
                if (resumable && attempt + 1 < kResumeAttempts) {
                    continue; // resume from what arrived, through a fresh redirect
                }
                return answer.error();
            }
            if (auto error = hubStatusError(*answer, layout.repoId + "/" + file.path, answer->tokenSent)) {
                if (answer->status == 416 && have == file.size) {
                    break;
                }
                return *error;
            }
            if (answer->status == 200 && resumedAt > 0) {
                // The server ignored Range and sent the file from its start after our bytes.
                fs::remove(pathFromUtf8(partial), ec);
                return makeError("hub.no-range", file.path +
                                                     ": the server ignored the Range request; the partial "
                                                     "download was deleted");
            }
        }
        const QByteArray digest = hash.result().toHex();
        if (digest.toStdString() != file.sha256 || sizeOf(partial) != file.size) {
            fs::remove(pathFromUtf8(partial), ec);
            return makeError("hub.hash-mismatch", file.path + ": the download's sha256 " +
                                                      digest.toStdString() + " is not the Hub's " +
                                                      file.sha256 +
                                                      "; the file was deleted, download it again");
        }
        fs::rename(pathFromUtf8(partial), pathFromUtf8(blob), ec);
        if (ec) {
            return cacheWriteError(blob, ec.message());
        }
    }
    if (auto error = linkSnapshot(layout, commit, file)) {
        return *error;
    }
    return layout.snapshotPath(commit, file.path);
}

} // namespace

Result<std::string> downloadHubFile(HubClient& client, const HubCacheLayout& layout,
                                    const std::string& commit, const HubRepoFile& file,
                                    const HubProgressCallback& progress) {
    return download(client, layout, commit, file, progress, Totals{file.size, 0});
}

Result<PulledQuant> pullQuant(HubClient& client, const HubCacheLayout& layout, const std::string& commit,
                              const RepoQuant& quant, bool withProjector, const HubProgressCallback& progress,
                              const std::string& branch) {
    if (quant.files.empty()) {
        return makeError("hub.no-quant", "the quant has no files");
    }
    std::vector<HubRepoFile> files = quant.files;
    if (withProjector && quant.projector) {
        files.push_back(*quant.projector);
    }
    Totals totals;
    for (const HubRepoFile& file : files) {
        totals.totalBytes += file.size;
    }
    PulledQuant pulled;
    pulled.commit = commit;
    for (std::size_t i = 0; i < files.size(); ++i) {
        auto path = download(client, layout, commit, files[i], progress, totals);
        if (!path) {
            return path.error();
        }
        totals.doneBefore += files[i].size;
        if (i < quant.files.size()) {
            pulled.modelPaths.push_back(*path);
        } else {
            pulled.projectorPath = *path;
        }
    }
    if (branch == "main") {
        if (auto error = writeRef(layout, branch, commit)) {
            return *error;
        }
    }
    return pulled;
}

} // namespace llamafit
