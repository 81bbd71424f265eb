// Crash-safe files: a child process saves every kind of file LlamaFit writes in a loop
// (crashsafesaver.cpp) and is SIGKILLed after a random number of rounds -- so at a random
// point of a round; afterwards each file must hold one whole version (crashsafeversions.h),
// never a torn mix, and must load without being treated as corrupt. The kill point is chosen
// by counting the child's "saved N" lines (no timing), from a fixed seed, so a failure
// reproduces with the same rounds.

#include "tests/integration/crashsafeversions.h"

#include "core/machine/machineprofile.h"
#include "core/system/profilestore.h"
#include "ui/appsettings.h"

#include <QProcess>
#include <QSettings>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace llamafit {
namespace {

constexpr int kTrials = 20;
constexpr int kMostRoundsBeforeKill = 24;

std::string readWholeFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// QSettings::sync() takes a QLockFile ("FILE.lock"). A saver killed between creating that file
// and writing its pid into it leaves an empty lock, which QLockFile only takes as stale after its
// staleLockTime, 30 s (qlockfile.cpp): the next saver's first round then waits that long (seen
// once in a clean-clone run, "killed after 11 rounds" reading 0). A round may take longer than that.
constexpr int kRoundDeadlineMs = 90000;

// Reads the saver's stdout until `rounds` "saved N" lines came (or it ended), then kills it.
int killAfterRounds(QProcess& saver, int rounds) {
    int seen = 0;
    while (seen < rounds && saver.state() == QProcess::Running) {
        if (!saver.canReadLine() && !saver.waitForReadyRead(kRoundDeadlineMs)) {
            break;
        }
        // Stop counting at `rounds`: a busy saver may have printed more lines in one batch (it is
        // killed mid-way through a later round either way).
        while (seen < rounds && saver.canReadLine()) {
            seen += saver.readLine().startsWith("saved ") ? 1 : 0;
        }
    }
    saver.kill(); // SIGKILL: no destructor, no QSaveFile::commit of a half-written round
    saver.waitForFinished(30000);
    return seen;
}

TEST(CrashSafeFiles, EveryFileIsOneWholeVersionAfterAKillAtAnyMoment) {
    QTemporaryDir folder;
    ASSERT_TRUE(folder.isValid());
    const std::string model = (folder.path() + QStringLiteral("/model.gguf")).toStdString();
    std::ofstream(model) << "not read: profiles key on the path and the size";
    const CrashSafeFiles files(folder.path());

    std::mt19937 random(20261201);
    std::uniform_int_distribution<int> roundsBeforeKill(1, kMostRoundsBeforeKill);
    for (int trial = 0; trial < kTrials; ++trial) {
        const int rounds = roundsBeforeKill(random);
        SCOPED_TRACE("trial " + std::to_string(trial) + ", killed after " + std::to_string(rounds) +
                     " rounds");
        QProcess saver;
        saver.start(QStringLiteral(LLAMAFIT_CRASHSAFE_SAVER_PATH),
                    {folder.path(), QString::fromStdString(model)});
        ASSERT_TRUE(saver.waitForStarted(30000)) << saver.errorString().toStdString();
        ASSERT_EQ(killAfterRounds(saver, rounds), rounds) << saver.readAllStandardError().toStdString();

        Result<Machine> machine = loadMachineProfile(files.machineProfile);
        ASSERT_TRUE(machine.ok()) << machine.error().message;
        EXPECT_TRUE(machine->name == crashSafeText(0) || machine->name == crashSafeText(1));

        ProfileStore profiles(folder.path());
        const ProfileLookup profile = profiles.load(model);
        EXPECT_TRUE(profile.message.empty()) << profile.message;
        ASSERT_TRUE(profile.settings.has_value());
        EXPECT_TRUE(*profile.settings == crashSafeServerSettings(0) ||
                    *profile.settings == crashSafeServerSettings(1));

        QSettings settings(QString::fromStdString(files.appSettings), QSettings::IniFormat);
        const AppSettingsLoad app = loadAppSettings(settings);
        EXPECT_TRUE(app.message.isEmpty()) << app.message.toStdString();
        EXPECT_TRUE(app.settings == crashSafeAppSettings(0) || app.settings == crashSafeAppSettings(1));

        const std::string script = readWholeFile(files.exportScript);
        EXPECT_TRUE(script == *exportShellScript(crashSafeExport(0, model)) ||
                    script == *exportShellScript(crashSafeExport(1, model)))
            << script.size() << " bytes";
    }
}

} // namespace
} // namespace llamafit
