// App settings <-> QSettings; see appsettings.h.
#include "ui/appsettings.h"
#include "core/common/units.h"

#include "core/sizing/rpcdevices.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <QSettings>

namespace llamafit {

namespace {

std::optional<std::uint64_t> readOptionalBytes(const QSettings& settings, const QString& key) {
    bool ok = false;
    const qulonglong value = settings.value(key).toULongLong(&ok);
    return ok && value > 0 ? std::optional<std::uint64_t>(value) : std::nullopt;
}

void writeOptionalBytes(QSettings& settings, const QString& key, std::optional<std::uint64_t> value) {
    if (value) {
        settings.setValue(key, QVariant::fromValue<qulonglong>(*value));
    } else {
        settings.remove(key);
    }
}

// "127.0.0.1:50052=2048": the endpoint and its free memory in MiB; nullopt when either is wrong.
std::optional<RpcHost> readRpcHost(const QString& entry) {
    const qsizetype equals = entry.lastIndexOf(u'=');
    bool ok = false;
    const qulonglong freeMiB = equals > 0 ? entry.mid(equals + 1).toULongLong(&ok) : 0;
    const std::string endpoint = entry.left(equals).toStdString();
    if (!ok || freeMiB == 0 || !checkRpcEndpoint(endpoint)) {
        return std::nullopt;
    }
    return RpcHost{endpoint, freeMiB * kMiB};
}

// QSettings reports a file it could not parse as FormatError and then holds nothing: keep
// the user's file by renaming it before anything is written over it.
QString moveAsideIfCorrupt(QSettings& settings) {
    if (settings.status() != QSettings::FormatError) {
        return {};
    }
    const QString path = settings.fileName();
    const QString aside = path + QStringLiteral(".corrupt-") +
                          QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    if (!QFile::rename(path, aside)) {
        return QCoreApplication::translate("AppSettings",
                                           "The settings file %1 could not be read and could not be moved "
                                           "aside; defaults are used and it will be overwritten on exit.")
            .arg(path);
    }
    return QCoreApplication::translate("AppSettings",
                                       "The settings file could not be read; it was moved to %1 and the "
                                       "defaults are used.")
        .arg(aside);
}

} // namespace

AppSettingsLoad loadAppSettings(QSettings& settings) {
    AppSettingsLoad load;
    load.message = moveAsideIfCorrupt(settings);
    if (!load.message.isEmpty()) {
        settings.sync(); // re-read: the renamed file is gone, so this starts empty
        return load;
    }
    AppSettings& values = load.settings;
    values.lastModel = settings.value(QStringLiteral("model/last")).toString();
    values.machineId = settings.value(QStringLiteral("machine/id")).toString();
    values.carveOutBytes = readOptionalBytes(settings, QStringLiteral("machine/carveOutBytes"));
    bool ok = false;
    const qulonglong margin = settings.value(QStringLiteral("machine/marginMiB"), 1024).toULongLong(&ok);
    values.marginMiB = ok ? margin : 1024;
    values.bandwidthBytesPerSecond =
        readOptionalBytes(settings, QStringLiteral("machine/bandwidthBytesPerSecond"));
    values.libraryFolders = settings.value(QStringLiteral("library/folders")).toStringList();
    for (const QString& entry : settings.value(QStringLiteral("cluster/rpcHosts")).toStringList()) {
        if (std::optional<RpcHost> host = readRpcHost(entry)) {
            values.rpcHosts.push_back(std::move(*host));
        }
    }
    values.serverBinary = settings.value(QStringLiteral("server/binary")).toString();
    values.host = settings.value(QStringLiteral("server/host"), QStringLiteral("127.0.0.1")).toString();
    const int port = settings.value(QStringLiteral("server/port"), 0).toInt(&ok);
    values.port = ok && port >= 0 && port <= 65535 ? port : 0;
    values.theme = themeChoiceFromName(settings.value(QStringLiteral("view/theme")).toString())
                       .value_or(ThemeChoice::System);
    values.language = settings.value(QStringLiteral("view/language")).toString();
    values.windowGeometry = settings.value(QStringLiteral("window/geometry")).toByteArray();
    values.windowState = settings.value(QStringLiteral("window/state")).toByteArray();
    return load;
}

void saveAppSettings(const AppSettings& values, QSettings& settings) {
    settings.setValue(QStringLiteral("model/last"), values.lastModel);
    settings.setValue(QStringLiteral("machine/id"), values.machineId);
    writeOptionalBytes(settings, QStringLiteral("machine/carveOutBytes"), values.carveOutBytes);
    settings.setValue(QStringLiteral("machine/marginMiB"), QVariant::fromValue<qulonglong>(values.marginMiB));
    writeOptionalBytes(settings, QStringLiteral("machine/bandwidthBytesPerSecond"),
                       values.bandwidthBytesPerSecond);
    settings.setValue(QStringLiteral("library/folders"), values.libraryFolders);
    QStringList hosts;
    for (const RpcHost& host : values.rpcHosts) {
        hosts
            << QStringLiteral("%1=%2").arg(QString::fromStdString(host.endpoint)).arg(host.freeBytes / kMiB);
    }
    settings.setValue(QStringLiteral("cluster/rpcHosts"), hosts);
    settings.setValue(QStringLiteral("server/binary"), values.serverBinary);
    settings.setValue(QStringLiteral("server/host"), values.host);
    settings.setValue(QStringLiteral("server/port"), values.port);
    settings.setValue(QStringLiteral("view/theme"), themeChoiceName(values.theme));
    settings.setValue(QStringLiteral("view/language"), values.language);
    settings.setValue(QStringLiteral("window/geometry"), values.windowGeometry);
    settings.setValue(QStringLiteral("window/state"), values.windowState);
    settings.sync();
}

QString themeChoiceName(ThemeChoice theme) {
    switch (theme) {
    case ThemeChoice::Light:
        return QStringLiteral("light");
    case ThemeChoice::Dark:
        return QStringLiteral("dark");
    case ThemeChoice::System:
        break;
    }
    return QStringLiteral("system");
}

std::optional<ThemeChoice> themeChoiceFromName(const QString& name) {
    for (ThemeChoice theme : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark}) {
        if (name == themeChoiceName(theme)) {
            return theme;
        }
    }
    return std::nullopt;
}

} // namespace llamafit
