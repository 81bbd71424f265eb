// Per-model settings profiles as JSON; see profilestore.h.

#include "core/system/profilestore.h"

#include "core/flags/serverargs.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSaveFile>
#include <QStandardPaths>

#include <vector>

namespace llamafit {
namespace {

constexpr int kFormatVersion = 1;

struct ModelKey {
    QString path;
    qint64 sizeBytes = -1;
};

std::optional<ModelKey> keyOf(const std::string& modelPath) {
    const QFileInfo info(QString::fromStdString(modelPath));
    if (!info.isFile()) {
        return std::nullopt;
    }
    return ModelKey{info.canonicalFilePath(), info.size()};
}

bool matches(const QJsonObject& profile, const ModelKey& key) {
    return profile.value(QStringLiteral("model")).toString() == key.path &&
           static_cast<qint64>(profile.value(QStringLiteral("sizeBytes")).toDouble(-1)) == key.sizeBytes;
}

} // namespace

ProfileStore::ProfileStore(QString folder) : m_folder(std::move(folder)) {
    if (m_folder.isEmpty()) {
        m_folder = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    }
}

QString ProfileStore::filePath() const {
    return QDir(m_folder).filePath(QStringLiteral("profiles.json"));
}

ProfileStore::FileState ProfileStore::readFile() const {
    FileState state;
    state.root =
        QJsonObject{{QStringLiteral("version"), kFormatVersion}, {QStringLiteral("profiles"), QJsonArray()}};
    QFile file(filePath());
    if (!file.exists()) {
        return state;
    }
    if (!file.open(QIODevice::ReadOnly)) {
        state.readable = false;
        state.message = "profiles file " + filePath().toStdString() + " cannot be read (" +
                        file.errorString().toStdString() + "); using defaults";
        return state;
    }
    QJsonParseError error{};
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &error);
    file.close();
    if (error.error == QJsonParseError::NoError && document.isObject() &&
        document.object().value(QStringLiteral("profiles")).isArray()) {
        state.root = document.object();
        return state;
    }
    // Corrupt: keep it next to the new one under a dated name, never overwrite it.
    const QString stamped = filePath() + QStringLiteral(".corrupt-") +
                            QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss"));
    QString aside = stamped;
    for (int n = 2; QFileInfo::exists(aside); ++n) {
        aside = stamped + QStringLiteral("-%1").arg(n); // two damaged files in one second
    }
    const QString why = error.error != QJsonParseError::NoError ? error.errorString()
                                                                : QStringLiteral("no \"profiles\" list");
    if (QFile::rename(filePath(), aside)) {
        state.message = "profiles file " + filePath().toStdString() + " was damaged (" + why.toStdString() +
                        "); moved to " + aside.toStdString() + " and using defaults";
    } else {
        state.readable = false; // could not move it: do not write over it either
        state.message = "profiles file " + filePath().toStdString() + " is damaged (" + why.toStdString() +
                        ") and could not be moved aside; using defaults";
    }
    return state;
}

ProfileLookup ProfileStore::load(const std::string& modelPath) {
    ProfileLookup lookup;
    const FileState state = readFile();
    lookup.message = state.message;
    const auto key = keyOf(modelPath);
    if (!key) {
        return lookup;
    }
    for (const QJsonValue& value : state.root.value(QStringLiteral("profiles")).toArray()) {
        const QJsonObject profile = value.toObject();
        if (!matches(profile, *key)) {
            continue;
        }
        std::vector<std::string> args;
        for (const QJsonValue& word : profile.value(QStringLiteral("args")).toArray()) {
            args.push_back(word.toString().toStdString());
        }
        auto parsed = parseServerArgs(args);
        if (!parsed.ok()) {
            lookup.message = "the saved profile of " + modelPath + " does not parse (" +
                             parsed.error().message + "); it stays in " + filePath().toStdString() +
                             ", using defaults";
            return lookup;
        }
        lookup.settings = parsed->settings;
        return lookup;
    }
    return lookup;
}

Result<bool> ProfileStore::save(const std::string& modelPath, const ServerSettings& settings) {
    const auto key = keyOf(modelPath);
    if (!key) {
        return makeError("profile.model-missing", "no model file at " + modelPath + " to save a profile for");
    }
    if (!QDir().mkpath(m_folder)) {
        return makeError("profile.unwritable", "cannot create the profiles folder " + m_folder.toStdString());
    }
    FileState state = readFile();
    if (!state.readable) {
        return makeError("profile.unwritable", state.message);
    }
    QJsonArray args;
    for (const std::string& word : toServerArgs(settings)) {
        args.append(QString::fromStdString(word));
    }
    QJsonArray profiles;
    for (const QJsonValue& value : state.root.value(QStringLiteral("profiles")).toArray()) {
        if (!matches(value.toObject(), *key)) {
            profiles.append(value); // every other profile, including ones that no longer parse
        }
    }
    profiles.append(
        QJsonObject{{QStringLiteral("model"), key->path},
                    {QStringLiteral("sizeBytes"), static_cast<double>(key->sizeBytes)},
                    {QStringLiteral("savedAt"), QDateTime::currentDateTimeUtc().toString(Qt::ISODate)},
                    {QStringLiteral("args"), args}});
    state.root.insert(QStringLiteral("version"), kFormatVersion);
    state.root.insert(QStringLiteral("profiles"), profiles);
    QSaveFile file(filePath());
    if (!file.open(QIODevice::WriteOnly) || file.write(QJsonDocument(state.root).toJson()) < 0 ||
        !file.commit()) {
        return makeError("profile.unwritable", "cannot write " + filePath().toStdString() + ": " +
                                                   file.errorString().toStdString());
    }
    return true;
}

} // namespace llamafit
