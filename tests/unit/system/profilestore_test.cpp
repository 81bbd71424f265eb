// ProfileStore: round trip, two models, a re-sized model file, a corrupt profiles.json
// moved aside with a message, a folder that cannot be created, the default AppData folder
// (QStandardPaths test mode).

#include "core/system/profilestore.h"

#include <QDir>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <fstream>

namespace llamafit {
namespace {

void writeBytes(const QString& path, std::size_t count) {
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    out << std::string(count, 'x');
}

class ProfileStoreTest : public ::testing::Test {
  protected:
    void SetUp() override {
        ASSERT_TRUE(m_dir.isValid());
        m_modelA = m_dir.filePath(QStringLiteral("models/a b é.gguf")).toStdString();
        m_modelB = m_dir.filePath(QStringLiteral("models/b.gguf")).toStdString();
        QDir().mkpath(m_dir.filePath(QStringLiteral("models")));
        writeBytes(QString::fromStdString(m_modelA), 100);
        writeBytes(QString::fromStdString(m_modelB), 200);
    }
    QString profileFolder() const { return m_dir.filePath(QStringLiteral("profiles")); }

    QTemporaryDir m_dir;
    std::string m_modelA;
    std::string m_modelB;
};

ServerSettings settingsA() {
    ServerSettings settings;
    settings.contextTokens = 8192;
    settings.cacheTypeV = GgmlType::Q8_0;
    settings.flashAttention = FlashAttention::On;
    settings.tensorOverrides = {{"blk\\.(1|2)\\.ffn_.*", "CPU"}};
    return settings;
}

TEST_F(ProfileStoreTest, RoundTripsTwoModels) {
    ProfileStore store(profileFolder());
    EXPECT_FALSE(store.load(m_modelA).settings.has_value());
    ServerSettings b;
    b.parallelSlots = 2;
    b.loadMode = LoadMode::None;
    ASSERT_TRUE(store.save(m_modelA, settingsA()).ok());
    ASSERT_TRUE(store.save(m_modelB, b).ok());

    ProfileStore reopened(profileFolder());
    const ProfileLookup a = reopened.load(m_modelA);
    EXPECT_TRUE(a.message.empty()) << a.message;
    ASSERT_TRUE(a.settings.has_value());
    EXPECT_EQ(*a.settings, settingsA());
    const ProfileLookup loadedB = reopened.load(m_modelB);
    ASSERT_TRUE(loadedB.settings.has_value());
    EXPECT_EQ(*loadedB.settings, b);

    // Saving again replaces that model's profile only.
    ServerSettings a2 = settingsA();
    a2.contextTokens = 1024;
    ASSERT_TRUE(reopened.save(m_modelA, a2).ok());
    EXPECT_EQ(*ProfileStore(profileFolder()).load(m_modelA).settings, a2);
    EXPECT_EQ(*ProfileStore(profileFolder()).load(m_modelB).settings, b);
}

TEST_F(ProfileStoreTest, ModelOfAnotherSizeStartsFromDefaults) {
    ProfileStore store(profileFolder());
    ASSERT_TRUE(store.save(m_modelA, settingsA()).ok());
    writeBytes(QString::fromStdString(m_modelA), 101);
    const ProfileLookup lookup = store.load(m_modelA);
    EXPECT_FALSE(lookup.settings.has_value());
    EXPECT_TRUE(lookup.message.empty());
}

TEST_F(ProfileStoreTest, CorruptFileIsMovedAsideWithAMessage) {
    ProfileStore store(profileFolder());
    ASSERT_TRUE(store.save(m_modelA, settingsA()).ok());
    {
        QFile file(store.filePath());
        ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write("{\"profiles\": [ {\"model\": ");
    }
    const ProfileLookup lookup = store.load(m_modelA);
    EXPECT_FALSE(lookup.settings.has_value());
    EXPECT_NE(lookup.message.find("moved to"), std::string::npos) << lookup.message;
    const QStringList aside = QDir(profileFolder()).entryList({QStringLiteral("profiles.json.corrupt-*")});
    ASSERT_EQ(aside.size(), 1);
    QFile kept(QDir(profileFolder()).filePath(aside.front()));
    ASSERT_TRUE(kept.open(QIODevice::ReadOnly));
    EXPECT_EQ(kept.readAll(), QByteArray("{\"profiles\": [ {\"model\": ")); // the bytes, untouched
    EXPECT_FALSE(QFile::exists(store.filePath()));
    // Saving after that starts a fresh file and works.
    ASSERT_TRUE(store.save(m_modelB, ServerSettings{}).ok());
    EXPECT_TRUE(store.load(m_modelB).message.empty());
}

TEST_F(ProfileStoreTest, UnparsableEntryIsKeptAndReported) {
    ProfileStore store(profileFolder());
    ASSERT_TRUE(store.save(m_modelB, ServerSettings{}).ok());
    {
        QFile file(store.filePath());
        ASSERT_TRUE(file.open(QIODevice::ReadOnly));
        QByteArray text = file.readAll();
        file.close();
        text.replace("\"args\": [", "\"args\": [\"--no-such-flag\"");
        ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
        file.write(text);
    }
    const ProfileLookup lookup = store.load(m_modelB);
    EXPECT_FALSE(lookup.settings.has_value());
    EXPECT_NE(lookup.message.find("--no-such-flag"), std::string::npos) << lookup.message;
    ASSERT_TRUE(store.save(m_modelA, settingsA()).ok());
    QFile file(store.filePath());
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    EXPECT_TRUE(file.readAll().contains("--no-such-flag")); // not dropped by the next save
}

TEST_F(ProfileStoreTest, UnwritableFolderIsAnError) {
    const QString blocker = m_dir.filePath(QStringLiteral("blocker"));
    writeBytes(blocker, 1); // a file where the folder would go: mkpath fails even as root
    ProfileStore store(blocker + QStringLiteral("/profiles"));
    auto saved = store.save(m_modelA, settingsA());
    ASSERT_FALSE(saved.ok());
    EXPECT_EQ(saved.error().code, "profile.unwritable");
    const ProfileLookup lookup = store.load(m_modelA);
    EXPECT_FALSE(lookup.settings.has_value());
    auto missing = store.save(m_dir.filePath(QStringLiteral("none.gguf")).toStdString(), settingsA());
    ASSERT_FALSE(missing.ok());
    EXPECT_EQ(missing.error().code, "profile.model-missing");
}

TEST_F(ProfileStoreTest, DefaultsToTheAppDataFolder) {
    QStandardPaths::setTestModeEnabled(true);
    ProfileStore store;
    EXPECT_TRUE(
        store.filePath().startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
    // Qt's test mode: ~/.qttest on Linux, AppData/Roaming/qttest on Windows.
    EXPECT_TRUE(store.filePath().contains(QStringLiteral("qttest"))) << store.filePath().toStdString();
    ASSERT_TRUE(store.save(m_modelA, settingsA()).ok());
    EXPECT_EQ(*ProfileStore().load(m_modelA).settings, settingsA());
    QFile::remove(store.filePath());
    QStandardPaths::setTestModeEnabled(false);
}

} // namespace
} // namespace llamafit
