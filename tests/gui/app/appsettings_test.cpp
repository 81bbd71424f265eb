// AppSettings round-trip through a real QSettings file, and a corrupt file moved aside.
#include "ui/appsettings.h"

#include <QDir>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

TEST(AppSettings, RoundTripsEveryField) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("llamafit.ini"));
    AppSettings values;
    values.lastModel = QStringLiteral("/models/a b/Qwen3.5-35B-A3B-Q6_K.gguf");
    values.machineId = QStringLiteral("rtx-4060-8gb");
    values.carveOutBytes = 32ULL << 30;
    values.marginMiB = 512;
    values.bandwidthBytesPerSecond = 256'000'000'000ULL;
    values.libraryFolders = {QStringLiteral("/data/models"), QStringLiteral("/mnt/ギガ")};
    values.rpcHosts = {RpcHost{"127.0.0.1:50052", 2048ULL << 20},
                       RpcHost{"192.168.1.20:50053", 24105ULL << 20}};
    values.serverBinary = QStringLiteral("/opt/llama/llama-server");
    values.host = QStringLiteral("0.0.0.0");
    values.port = 8080;
    values.theme = ThemeChoice::Dark;
    values.language = QStringLiteral("ja");
    values.windowGeometry = QByteArray("\x01\x02geometry", 10);
    values.windowState = QByteArray("state\x00\x01", 7);
    {
        QSettings settings(path, QSettings::IniFormat);
        saveAppSettings(values, settings);
    }
    QSettings settings(path, QSettings::IniFormat);
    const AppSettingsLoad loaded = loadAppSettings(settings);
    EXPECT_TRUE(loaded.message.isEmpty());
    EXPECT_EQ(loaded.settings, values);
}

TEST(AppSettings, MissingFileGivesDefaults) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("none.ini")), QSettings::IniFormat);
    const AppSettingsLoad loaded = loadAppSettings(settings);
    EXPECT_TRUE(loaded.message.isEmpty());
    EXPECT_EQ(loaded.settings, AppSettings{});
}

TEST(AppSettings, OutOfRangeValuesFallBackToDefaults) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("odd.ini"));
    {
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(
            "[server]\nport=99999\n[view]\ntheme=purple\n[machine]\nmarginMiB=lots\n"
            "[cluster]\nrpcHosts=127.0.0.1=2048, 10.0.0.2:50052=lots, 10.0.0.3:50052, 10.0.0.4:50052=4096\n");
    }
    QSettings settings(path, QSettings::IniFormat);
    const AppSettingsLoad loaded = loadAppSettings(settings);
    EXPECT_EQ(loaded.settings.port, 0);
    EXPECT_EQ(loaded.settings.theme, ThemeChoice::System);
    EXPECT_EQ(loaded.settings.marginMiB, 1024U);
    // Only the host that reads back whole: an endpoint without a port, free memory that is no
    // number or missing are dropped.
    EXPECT_EQ(loaded.settings.rpcHosts, (std::vector<RpcHost>{{"10.0.0.4:50052", 4096ULL << 20}}));
}

TEST(AppSettings, CorruptFileIsMovedAsideAndNothingIsLost) {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("corrupt.ini"));
    const QByteArray garbage("[model\nlast=x\n\x01\x02\xff", 17);
    {
        QFile file(path);
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(garbage);
    }
    QSettings settings(path, QSettings::IniFormat);
    const AppSettingsLoad loaded = loadAppSettings(settings);
    ASSERT_FALSE(loaded.message.isEmpty());
    EXPECT_EQ(loaded.settings, AppSettings{});
    const QStringList aside = QDir(dir.path()).entryList({QStringLiteral("corrupt.ini.corrupt-*")});
    ASSERT_EQ(aside.size(), 1);
    EXPECT_TRUE(loaded.message.contains(aside.first()));
    QFile kept(dir.filePath(aside.first()));
    ASSERT_TRUE(kept.open(QIODevice::ReadOnly));
    EXPECT_EQ(kept.readAll(), garbage);
}

TEST(AppSettings, ThemeNamesRoundTrip) {
    for (ThemeChoice theme : {ThemeChoice::System, ThemeChoice::Light, ThemeChoice::Dark}) {
        EXPECT_EQ(themeChoiceFromName(themeChoiceName(theme)), theme);
    }
    EXPECT_FALSE(themeChoiceFromName(QStringLiteral("sepia")).has_value());
}

} // namespace
} // namespace llamafit
