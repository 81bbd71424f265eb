#pragma once
// ModelProfiles: the last settings used for each model, so choosing a model again restores
// them. A GGUF file's profile lives in the launcher's ProfileStore (keyed by canonical path and
// size, shared with `llamafit-cli launch`); a built-in card has no file, so its profile is
// kept in the app's QSettings under "cards/<id>", as llama-server flags (toServerArgs), like
// ProfileStore does. Extra (non-memory) flags and the llama-server build are kept next to the settings.
// Used by MainWindow when the model changes and when the app exits. Thread: GUI thread.

#include "core/model/modelsource.h"
#include "core/sizing/serversettings.h"
#include "core/system/profilestore.h"

#include <QString>

#include <optional>
#include <string>
#include <vector>

class QSettings;

namespace llamafit {

struct ModelProfile {
    ServerSettings settings;
    std::vector<std::string> extraArgs;
    // The llama-server build this model was launched with (Server > llama-server builds): empty
    // = the app's current one. Kept beside the extra flags.
    QString serverBinary;
};

class ModelProfiles {
  public:
    // `settings`: where card profiles and extra flags go; `profileFolder`: ProfileStore's
    // folder (empty = its default). Both outlive this object.
    ModelProfiles(QSettings* settings, QString profileFolder = {});

    // nullopt: no profile, or one that no longer parses (message() says why).
    std::optional<ModelProfile> load(const LoadedModel& model);
    void save(const LoadedModel& model, const ModelProfile& profile);
    // Something that needs the user's attention from the last load/save; empty otherwise.
    const QString& message() const { return m_message; }

  private:
    QString key(const LoadedModel& model) const;

    QSettings* m_settings;
    ProfileStore m_store;
    QString m_message;
};

} // namespace llamafit
