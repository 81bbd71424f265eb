// llama.cpp's release build into LlamaFit's engines folder; see enginefetch.h.

#include "core/system/enginefetch.h"

#include "core/common/utf8path.h"
#include "core/server/enginelocations.h"

#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QSysInfo>

#include <filesystem>

namespace llamafit {

namespace {

namespace fs = std::filesystem;

constexpr int kUnpackTimeoutMs = 600000;

// The folder under `root` (at any depth up to three) that holds the program; "" when none does.
QString folderWithProgram(const QString& root, OsKind os) {
    const QString program = QString::fromStdString(llamaServerProgramName(os));
    QDirIterator files(root, {program}, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString path = files.next();
        if (QDir(root).relativeFilePath(path).count(QLatin1Char('/')) <= 3) {
            return QFileInfo(path).absolutePath();
        }
    }
    return {};
}

Result<bool> download(HubClient& http, const ReleaseAsset& asset, const QString& path,
                      const HubProgressCallback& progress) {
    QFile out(path);
    if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        return makeError("hub.cache-write", path.toStdString() + ": " + out.errorString().toStdString());
    }
    QCryptographicHash hash(QCryptographicHash::Sha256);
    std::uint64_t done = 0;
    bool writeFailed = false;
    auto answer = http.get(
        asset.url, {},
        [&](const QByteArray& chunk) {
            if (out.write(chunk) != chunk.size()) {
                writeFailed = true;
                return false;
            }
            hash.addData(chunk);
            done += static_cast<std::uint64_t>(chunk.size());
            if (progress) {
                progress(HubDownloadProgress{asset.name, asset.size, done, asset.size, done, 0});
            }
            return true;
        },
        0);
    out.close();
    if (writeFailed) {
        return makeError("hub.cache-write", path.toStdString() + ": the disk refused a write");
    }
    if (!answer) {
        return answer.error();
    }
    if (auto error = hubStatusError(*answer, asset.name, false)) {
        return *error;
    }
    const std::string digest = hash.result().toHex().toStdString();
    if (digest != asset.sha256) {
        QFile::remove(path);
        return makeError("release.digest-mismatch",
                         asset.name + ": its sha256 " + digest +
                             " is not the digest the release publishes (" + asset.sha256 +
                             "); the download was deleted and nothing was unpacked");
    }
    return true;
}

Result<bool> unpack(const QString& archive, const QString& folder, OsKind os) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    if (archive.endsWith(QStringLiteral(".zip")) && os != OsKind::Windows) {
        process.start(QStringLiteral("unzip"),
                      {QStringLiteral("-q"), QStringLiteral("-o"), archive, QStringLiteral("-d"), folder});
    } else {
        process.start(QStringLiteral("tar"), {QStringLiteral("-xf"), archive, QStringLiteral("-C"), folder});
    }
    if (!process.waitForStarted() || !process.waitForFinished(kUnpackTimeoutMs) ||
        process.exitStatus() != QProcess::NormalExit || process.exitCode() != 0) {
        return makeError("release.unpack-failed", archive.toStdString() + " could not be unpacked: " +
                                                      process.readAll().left(500).toStdString() +
                                                      process.errorString().toStdString());
    }
    return true;
}

} // namespace

std::string defaultEnginesRoot() {
    if (const QString chosen = qEnvironmentVariable("LLAMAFIT_ENGINES_DIR"); !chosen.isEmpty()) {
        return chosen.toStdString();
    }
    return (QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
            QStringLiteral("/llamafit/engines"))
        .toStdString();
}

std::string currentCpuName() {
    const QString cpu = QSysInfo::currentCpuArchitecture();
    return cpu == QStringLiteral("arm64") ? "arm64" : "x64";
}

std::vector<std::string> ownEngineFolders(const std::string& enginesRoot, OsKind os) {
    std::vector<std::string> folders;
    const QDir root(QString::fromStdString(enginesRoot));
    for (const QString& entry : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
        if (entry.startsWith(QLatin1Char('.'))) {
            continue; // .downloads, a .partial unpack
        }
        const QString folder = folderWithProgram(root.filePath(entry), os);
        if (!folder.isEmpty()) {
            folders.push_back(folder.toStdString());
        }
    }
    return folders;
}

Result<FetchedEngine> fetchEngine(HubClient& http, const EngineFetchRequest& request,
                                  const HubProgressCallback& progress) {
    auto listing = http.get(request.releasesUrl, {{"Accept", "application/vnd.github+json"}});
    if (!listing) {
        return listing.error();
    }
    if (auto error = hubStatusError(*listing, request.releasesUrl, false)) {
        return *error;
    }
    auto release = parseLlamaRelease(listing->body.toStdString());
    if (!release) {
        return release.error();
    }
    auto assets = chooseEngineAssets(*release, request.os, request.cpu, request.backend);
    if (!assets) {
        return assets.error();
    }
    const QDir root(QString::fromStdString(request.enginesRoot));
    const QString downloads = root.filePath(QStringLiteral(".downloads"));
    const QString name =
        QString::fromStdString(release->tag + "-" + std::string(engineBackendName(request.backend)));
    const QString partial = root.filePath(QStringLiteral(".partial-") + name);
    if (!QDir().mkpath(downloads) || (QDir(partial).exists() && !QDir(partial).removeRecursively()) ||
        !QDir().mkpath(partial)) {
        return makeError("hub.cache-write", request.enginesRoot + ": the engines folder cannot be written");
    }
    std::vector<ReleaseAsset> parts{assets->archive};
    if (assets->runtime) {
        parts.push_back(*assets->runtime);
    }
    for (const ReleaseAsset& asset : parts) {
        const QString archive = QDir(downloads).filePath(QString::fromStdString(asset.name));
        if (auto fetched = download(http, asset, archive, progress); !fetched) {
            QDir(partial).removeRecursively();
            return fetched.error();
        }
        // Only a verified archive is unpacked; it is not kept once unpacked.
        auto unpacked = unpack(archive, partial, request.os);
        QFile::remove(archive);
        if (!unpacked) {
            QDir(partial).removeRecursively();
            return unpacked.error();
        }
    }
    if (folderWithProgram(partial, request.os).isEmpty()) {
        QDir(partial).removeRecursively();
        return makeError("release.no-program",
                         assets->archive.name + " holds no " + llamaServerProgramName(request.os));
    }
    const QString folder = root.filePath(name);
    if (QDir(folder).exists()) {
        QDir(folder).removeRecursively();
    }
    if (!QDir().rename(partial, folder)) {
        return makeError("hub.cache-write",
                         folder.toStdString() + ": the unpacked build cannot be moved into place");
    }
    return FetchedEngine{release->tag, folder.toStdString(),
                         (folderWithProgram(folder, request.os) + QLatin1Char('/') +
                          QString::fromStdString(llamaServerProgramName(request.os)))
                             .toStdString()};
}

} // namespace llamafit
