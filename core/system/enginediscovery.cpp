// The llama-server builds on this machine; see enginediscovery.h.

#include "core/system/enginediscovery.h"

#include "core/system/processenvironment.h"
#include "core/system/programoutput.h"
#include "core/system/rpchostquery.h"

#include <QDir>
#include <QFileInfo>

#include <set>

namespace llamafit {

std::vector<InstalledEngine> discoverEngines(const EngineDiscoveryOptions& options) {
    EngineSearch search =
        engineSearch(processEnvironment(), homeDirectory(), currentOsKind(), options.ownEngineFolders);
    for (const EngineSearch::FolderScan& scan : search.folderScans) {
        const QDir folder(QString::fromStdString(scan.folder));
        const QStringList packages =
            folder.entryList({QString::fromStdString(scan.subfolderPrefix) + QLatin1Char('*')},
                             QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString& package : packages) {
            search.programs.push_back(
                {folder
                     .filePath(package + QLatin1Char('/') +
                               QString::fromStdString(llamaServerProgramName(currentOsKind())))
                     .toStdString(),
                 scan.origin});
        }
    }
    std::vector<InstalledEngine> engines;
    std::set<QString> seen;
    for (const EngineLocation& location : search.programs) {
        const QFileInfo file(QString::fromStdString(location.path));
        if (!file.exists() || !file.isFile() || !file.isExecutable()) {
            continue;
        }
        if (!seen.insert(file.canonicalFilePath()).second) {
            continue;
        }
        InstalledEngine engine{location, std::nullopt, {}, std::nullopt};
        auto version = programOutput(location.path, {QStringLiteral("--version")}, options.timeout);
        auto help =
            version ? programOutput(location.path, {QStringLiteral("--help")}, options.timeout) : version;
        if (!help) {
            engine.error = help.error();
        } else if (auto build = parseBuildCapabilities(*version, *help)) {
            engine.build = std::move(*build);
            auto devices = queryListedDevices(RpcHostQuery{location.path, {}, options.timeout});
            if (devices) {
                engine.devices = std::move(*devices);
            } else {
                engine.error = devices.error();
            }
        } else {
            engine.error = build.error();
        }
        engines.push_back(std::move(engine));
    }
    return engines;
}

} // namespace llamafit
