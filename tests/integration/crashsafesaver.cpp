// llamafit-crashsafe-saver DIR MODEL: the "app" that is killed while saving, for the
// crash-safe-files test (crashsafewrite_test.cpp). Saves, round after round, each kind of file
// LlamaFit writes -- a machine profile, the per-model profiles, the app settings (QSettings) and
// an exported launch script -- alternating between two versions of different sizes, and
// prints "saved N" after each round. The test SIGKILLs it at random moments and checks that
// every file holds one version or the other, whole. Test support only.

#include "tests/integration/crashsafeversions.h"

#include "core/machine/machineprofile.h"
#include "core/system/profilestore.h"
#include "ui/appsettings.h"
#include "ui/launch/launchexport.h"

#include <QCoreApplication>
#include <QSettings>

#include <cstdio>

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (argc != 3) {
        std::fprintf(stderr, "usage: llamafit-crashsafe-saver DIR MODEL\n");
        return 2;
    }
    using namespace llamafit;
    const QString folder = QString::fromLocal8Bit(argv[1]);
    const std::string model = argv[2];
    const CrashSafeFiles files(folder);
    ProfileStore profiles(folder);
    for (long round = 0;; ++round) {
        const int version = static_cast<int>(round % 2);
        const bool ok = saveMachineProfile(crashSafeMachine(version), files.machineProfile).ok() &&
                        profiles.save(model, crashSafeServerSettings(version)).ok() &&
                        writeExportFile(ExportFormat::ShellScript, crashSafeExport(version, model),
                                        QString::fromStdString(files.exportScript))
                            .ok();
        QSettings settings(QString::fromStdString(files.appSettings), QSettings::IniFormat);
        saveAppSettings(crashSafeAppSettings(version), settings);
        settings.sync();
        if (!ok || settings.status() != QSettings::NoError) {
            std::fprintf(stderr, "save failed in round %ld\n", round);
            return 1;
        }
        std::printf("saved %ld\n", round);
        std::fflush(stdout);
    }
}
