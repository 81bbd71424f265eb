// Per-model settings: ProfileStore for files, QSettings for cards; see modelprofiles.h.
#include "ui/modelprofiles.h"

#include "core/flags/serverargs.h"
#include "core/system/stringlists.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QSettings>
#include <QStringList>

namespace llamafit {

namespace {} // namespace

ModelProfiles::ModelProfiles(QSettings* settings, QString profileFolder)
    : m_settings(settings), m_store(std::move(profileFolder)) {}

// QSettings keys may not hold '/' or '\\' freely: a hash of the path or card id is the key.
QString ModelProfiles::key(const LoadedModel& model) const {
    const std::string& id = model.path.empty() ? model.cardId : model.path;
    const QByteArray hash =
        QCryptographicHash::hash(QByteArray::fromStdString(id), QCryptographicHash::Sha1).toHex().left(16);
    return QStringLiteral("profiles/") + QString::fromLatin1(hash);
}

std::optional<ModelProfile> ModelProfiles::load(const LoadedModel& model) {
    m_message.clear();
    ModelProfile profile;
    bool found = false;
    if (!model.path.empty()) {
        ProfileLookup lookup = m_store.load(model.path);
        m_message = QString::fromStdString(lookup.message);
        if (lookup.settings) {
            profile.settings = *lookup.settings;
            found = true;
        }
    } else if (!model.cardId.empty()) {
        const QStringList words = m_settings->value(key(model) + QStringLiteral("/args")).toStringList();
        if (m_settings->contains(key(model) + QStringLiteral("/args"))) {
            Result<ParsedServerArgs> parsed = parseServerArgs(toStdStrings(words));
            if (!parsed) {
                m_message = QCoreApplication::translate("ModelProfiles",
                                                        "The saved settings of %1 no longer parse (%2); "
                                                        "the defaults are used.")
                                .arg(QString::fromStdString(model.displayName),
                                     QString::fromStdString(parsed.error().message));
                return std::nullopt;
            }
            profile.settings = parsed->settings;
            found = true;
        }
    }
    profile.extraArgs = toStdStrings(m_settings->value(key(model) + QStringLiteral("/extra")).toStringList());
    profile.serverBinary = m_settings->value(key(model) + QStringLiteral("/server")).toString();
    if (!found && profile.extraArgs.empty() && profile.serverBinary.isEmpty()) {
        return std::nullopt;
    }
    return profile;
}

void ModelProfiles::save(const LoadedModel& model, const ModelProfile& profile) {
    m_message.clear();
    if (!model.path.empty()) {
        Result<bool> saved = m_store.save(model.path, profile.settings);
        if (!saved) {
            m_message = QString::fromStdString(saved.error().message);
        }
    } else if (!model.cardId.empty()) {
        m_settings->setValue(key(model) + QStringLiteral("/args"),
                             toQStringList(toServerArgs(profile.settings)));
    } else {
        return;
    }
    m_settings->setValue(key(model) + QStringLiteral("/extra"), toQStringList(profile.extraArgs));
    m_settings->setValue(key(model) + QStringLiteral("/server"), profile.serverBinary);
}

} // namespace llamafit
