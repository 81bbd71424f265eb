// ModelProfiles: a card's settings in QSettings, a file's in ProfileStore, both restored.
#include "ui/modelprofiles.h"

#include "core/model/modelspec.h"
#include "tests/support/modelfiles.h"

#include <QSettings>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

ServerSettings someSettings() {
    ServerSettings settings;
    settings.contextTokens = 65536;
    settings.cacheTypeK = GgmlType::Q8_0;
    settings.cacheTypeV = GgmlType::Q4_0;
    settings.parallelSlots = 2;
    settings.flashAttention = FlashAttention::On;
    return settings;
}

TEST(ModelProfiles, ACardsSettingsAndExtraFlagsComeBack) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
    ModelProfiles profiles(&settings, dir.filePath(QStringLiteral("profiles")));
    const Result<LoadedModel> card = loadModel(std::string(defaultModelCardId()));
    ASSERT_TRUE(card.ok());
    EXPECT_FALSE(profiles.load(*card).has_value());
    profiles.save(
        *card, ModelProfile{someSettings(), {"-t", "8"}, QStringLiteral("/opt/llama-b11669/llama-server")});
    ModelProfiles reopened(&settings, dir.filePath(QStringLiteral("profiles")));
    const std::optional<ModelProfile> loaded = reopened.load(*card);
    ASSERT_TRUE(loaded.has_value());
    EXPECT_EQ(loaded->settings, someSettings());
    EXPECT_EQ(loaded->extraArgs, (std::vector<std::string>{"-t", "8"}));
    EXPECT_EQ(loaded->serverBinary,
              QStringLiteral("/opt/llama-b11669/llama-server")); // the build it ran with
}

TEST(ModelProfiles, AFilesSettingsGoThroughTheProfileStore) {
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("tiny.gguf")).toStdString();
    ASSERT_TRUE(test::writeTinyModel(path).ok());
    const Result<LoadedModel> model = loadModel(path);
    ASSERT_TRUE(model.ok());
    QSettings settings(dir.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
    ModelProfiles profiles(&settings, dir.filePath(QStringLiteral("profiles")));
    profiles.save(*model, ModelProfile{someSettings(), {}, {}});
    EXPECT_TRUE(profiles.message().isEmpty()) << profiles.message().toStdString();
    ProfileStore store(dir.filePath(QStringLiteral("profiles")));
    const ProfileLookup lookup = store.load(path);
    ASSERT_TRUE(lookup.settings.has_value());
    EXPECT_EQ(*lookup.settings, someSettings());
    const std::optional<ModelProfile> loaded = profiles.load(*model);
    ASSERT_TRUE(loaded.has_value());
    EXPECT_EQ(loaded->settings, someSettings());
}

TEST(ModelProfiles, FlagsThatNoLongerParseAreReportedAndDefaultsUsed) {
    QTemporaryDir dir;
    QSettings settings(dir.filePath(QStringLiteral("app.ini")), QSettings::IniFormat);
    ModelProfiles profiles(&settings, dir.filePath(QStringLiteral("profiles")));
    const Result<LoadedModel> card = loadModel(std::string(defaultModelCardId()));
    ASSERT_TRUE(card.ok());
    profiles.save(*card, ModelProfile{someSettings(), {}, {}});
    for (const QString& key : settings.allKeys()) {
        if (key.endsWith(QStringLiteral("/args"))) {
            settings.setValue(key, QStringList{QStringLiteral("-c"), QStringLiteral("lots")});
        }
    }
    EXPECT_FALSE(profiles.load(*card).has_value());
    EXPECT_FALSE(profiles.message().isEmpty());
}

} // namespace
} // namespace llamafit
