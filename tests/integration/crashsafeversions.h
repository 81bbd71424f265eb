#pragma once
// The two versions of each file the crash-safe-files test saves (crashsafesaver.cpp) and
// checks (crashsafewrite_test.cpp): version 0 is short, version 1 is long, so a torn write
// cannot pass for either. Test support only.

#include "core/machine/machineprofile.h"
#include "core/machine/memorypools.h"
#include "core/server/exports.h"
#include "core/sizing/serversettings.h"
#include "ui/appsettings.h"

#include <QString>

#include <string>

namespace llamafit {

struct CrashSafeFiles {
    explicit CrashSafeFiles(const QString& folder)
        : machineProfile((folder + QStringLiteral("/machine.json")).toStdString()),
          appSettings((folder + QStringLiteral("/llamafit.ini")).toStdString()),
          exportScript((folder + QStringLiteral("/run-llama-server.sh")).toStdString()) {}
    std::string machineProfile;
    std::string appSettings;
    std::string exportScript;
    // ProfileStore(folder) keeps profiles.json in the folder itself.
};

inline std::string crashSafeText(int version) {
    return version == 0 ? std::string(12, 'a') : std::string(6000, 'b');
}

inline Machine crashSafeMachine(int version) {
    Machine machine = builtinMachines().front();
    machine.name = crashSafeText(version);
    return machine;
}

inline ServerSettings crashSafeServerSettings(int version) {
    ServerSettings settings;
    settings.contextTokens = version == 0 ? 4096u : 131072u;
    return settings;
}

inline ExportSpec crashSafeExport(int version, const std::string& model) {
    ExportSpec spec;
    spec.modelPath = model;
    spec.settings = crashSafeServerSettings(version);
    spec.extraArgs = {"--alias", crashSafeText(version)};
    return spec;
}

inline AppSettings crashSafeAppSettings(int version) {
    AppSettings settings;
    settings.lastModel = QString::fromStdString(crashSafeText(version));
    return settings;
}

} // namespace llamafit
