#include "core/system/apikeyfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>
#include <QSaveFile>
#include <QStandardPaths>

#include <array>
#include <optional>
#include <vector>

namespace llamafit {

namespace {

constexpr QFileDevice::Permissions kOwnerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
// A key file is one short line; anything larger is not one of ours.
constexpr qint64 kMaxKeyFileBytes = 4096;

// 256 random bits from the operating system's generator, as hex after a recognisable prefix.
std::string newKey() {
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->generate(words.begin(), words.end());
    QByteArray bytes(reinterpret_cast<const char*>(words.data()), static_cast<qsizetype>(sizeof(words)));
    return "llamafit-" + bytes.toHex().toStdString();
}

Result<std::string> keyInFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        return makeError("apikey.read-failed", "cannot read the API key file " + path.toStdString() + ": " +
                                                   file.errorString().toStdString());
    }
    const std::string key = apiKeyFromFileContent(file.read(kMaxKeyFileBytes).toStdString());
    if (key.empty()) {
        return makeError("apikey.empty",
                         "the API key file " + path.toStdString() + " holds no key on its first line");
    }
    return key;
}

} // namespace

QString defaultApiKeyFilePath() {
    return QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
           QStringLiteral("/LlamaFit/llama-server-api-key");
}

Result<std::string> ensureApiKeyFile(const QString& path) {
    if (QFileInfo::exists(path)) {
        QFile existing(path);
        if ((existing.permissions() & ~(kOwnerOnly | QFileDevice::ReadUser | QFileDevice::WriteUser)) != 0 &&
            !existing.setPermissions(kOwnerOnly)) {
            return makeError("apikey.write-failed", "cannot make the API key file " + path.toStdString() +
                                                        " private: " + existing.errorString().toStdString());
        }
        return keyInFile(path);
    }
    if (!QDir().mkpath(QFileInfo(path).absolutePath())) {
        return makeError("apikey.write-failed", "cannot create the folder of " + path.toStdString());
    }
    const std::string key = newKey();
    QSaveFile file(path);
    // The mode is set on the temporary file before the key is written, so the key is never
    // readable by others, not even for a moment; the rename keeps it.
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(kOwnerOnly) ||
        file.write(QByteArray::fromStdString(key + "\n")) < 0 || !file.commit()) {
        return makeError("apikey.write-failed", "cannot write the API key file " + path.toStdString() + ": " +
                                                    file.errorString().toStdString());
    }
    return key;
}

Result<std::vector<std::string>> prepareExposure(const std::string& host, std::vector<std::string> extraArgs,
                                                 bool networkAccessChosen) {
    const NetworkExposure exposure{networkAccessChosen, defaultApiKeyFilePath().toStdString()};
    Result<std::vector<std::string>> guarded = guardExposure(host, std::move(extraArgs), exposure);
    if (guarded && apiKeySource(*guarded) == ApiKeySource{{}, exposure.apiKeyFile}) {
        if (Result<std::string> key = ensureApiKeyFile(defaultApiKeyFilePath()); !key) {
            return key.error();
        }
    }
    return guarded;
}

Result<std::string> apiKeyOfServer(const QStringList& serverArguments) {
    std::vector<std::string> words;
    for (const QString& argument : serverArguments) {
        words.push_back(argument.toStdString());
    }
    const std::optional<ApiKeySource> source = apiKeySource(words);
    if (!source) {
        return std::string();
    }
    return source->file.empty() ? source->key : keyInFile(QString::fromStdString(source->file));
}

} // namespace llamafit
