#pragma once
// ProfileStore: the last ServerSettings used for each model file, so the launcher and the
// GUI reopen a model with the flags it ran with. Keyed by the model's canonical path and
// its size in bytes (a re-downloaded or re-quantized file under the same name starts from
// defaults). One JSON file, profiles.json, in QStandardPaths::AppDataLocation unless a
// folder is given; each profile holds the settings as llama-server flags (toServerArgs /
// parseServerArgs of core/flags/serverargs.h), readable and stable across LlamaFit versions.
//
// Nothing is silently lost: a profiles.json that does not parse is renamed
// profiles.json.corrupt-YYYYMMDD-HHMMSS (the message says where) and defaults are used; an
// entry whose flags no longer parse is kept in the file untouched, with a message.
// Used by `llamafit-cli launch` and, later, the GUI. Thread: any, one object per thread.
//
// Error codes: profile.model-missing (save: the model file is not there),
// profile.unwritable (the folder cannot be created or the file written).

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <QJsonObject>
#include <QString>

#include <optional>
#include <string>

namespace llamafit {

struct ProfileLookup {
    std::optional<ServerSettings> settings; // nullopt: no profile, use the defaults
    std::string message;                    // non-empty: something needed the user's attention
};

class ProfileStore {
  public:
    // folder: where profiles.json lives; empty = QStandardPaths::AppDataLocation.
    explicit ProfileStore(QString folder = {});

    QString filePath() const;
    ProfileLookup load(const std::string& modelPath);
    Result<bool> save(const std::string& modelPath, const ServerSettings& settings);

  private:
    struct FileState {
        QJsonObject root;    // {"version":1,"profiles":[...]}
        std::string message; // corrupt file moved aside, unreadable, ...
        bool readable = true;
    };
    FileState readFile() const;

    QString m_folder;
};

} // namespace llamafit
