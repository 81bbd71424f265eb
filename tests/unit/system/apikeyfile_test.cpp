// The API key file of a server that listens beyond this computer (core/system/apikeyfile.h):
// made once with a random key, user-only from the first byte, read back as llama-server reads
// it, and found from a server's own arguments by the monitor.

#include "core/system/apikeyfile.h"

#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

constexpr QFileDevice::Permissions kOthers =
    QFileDevice::ReadGroup | QFileDevice::WriteGroup | QFileDevice::ReadOther | QFileDevice::WriteOther;

class ApiKeyFileTest : public ::testing::Test {
  protected:
    QString path(const char* name) const { return m_folder.filePath(QString::fromLatin1(name)); }
    QTemporaryDir m_folder;
};

TEST_F(ApiKeyFileTest, IsMadeOnceWithARandomKeyOnlyTheUserCanRead) {
    const QString file = path("sub/folder/api-key");
    const Result<std::string> first = ensureApiKeyFile(file);
    ASSERT_TRUE(first) << first.error().message;
    EXPECT_EQ(first->rfind("llamafit-", 0), 0U);
    EXPECT_EQ(first->size(), std::string("llamafit-").size() + 64);
#ifndef Q_OS_WIN
    EXPECT_EQ(QFile::permissions(file) & kOthers, QFileDevice::Permissions());
#endif
    const Result<std::string> again = ensureApiKeyFile(file);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *first);
    // Another file gets another key.
    const Result<std::string> other = ensureApiKeyFile(path("other-key"));
    ASSERT_TRUE(other);
    EXPECT_NE(*other, *first);
}

#ifndef Q_OS_WIN
TEST_F(ApiKeyFileTest, ALooseModeIsTightenedAndTheKeyKept) {
    const QString file = path("loose");
    QFile loose(file);
    ASSERT_TRUE(loose.open(QIODevice::WriteOnly));
    loose.write("my-own-key\n");
    loose.close();
    ASSERT_TRUE(QFile::setPermissions(file, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                                QFileDevice::ReadGroup | QFileDevice::ReadOther));
    const Result<std::string> key = ensureApiKeyFile(file);
    ASSERT_TRUE(key) << key.error().message;
    EXPECT_EQ(*key, "my-own-key");
    EXPECT_EQ(QFile::permissions(file) & kOthers, QFileDevice::Permissions());
}
#endif

TEST_F(ApiKeyFileTest, AFileWithoutAKeyIsNamed) {
    const QString file = path("empty");
    QFile empty(file);
    ASSERT_TRUE(empty.open(QIODevice::WriteOnly));
    empty.write("\nsecond-line\n");
    empty.close();
    const Result<std::string> key = ensureApiKeyFile(file);
    ASSERT_FALSE(key);
    EXPECT_EQ(key.error().code, "apikey.empty");
}

TEST_F(ApiKeyFileTest, TheMonitorFindsTheKeyInTheServersArguments) {
    const Result<std::string> none = apiKeyOfServer({QStringLiteral("-m"), QStringLiteral("x.gguf")});
    ASSERT_TRUE(none);
    EXPECT_TRUE(none->empty());
    const Result<std::string> inline_ = apiKeyOfServer({QStringLiteral("--api-key"), QStringLiteral("abc")});
    ASSERT_TRUE(inline_);
    EXPECT_EQ(*inline_, "abc");
    const QString file = path("key");
    const Result<std::string> made = ensureApiKeyFile(file);
    ASSERT_TRUE(made);
    const Result<std::string> fromFile = apiKeyOfServer({QStringLiteral("--api-key-file"), file});
    ASSERT_TRUE(fromFile);
    EXPECT_EQ(*fromFile, *made);
    const Result<std::string> missing = apiKeyOfServer({QStringLiteral("--api-key-file"), path("absent")});
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().code, "apikey.read-failed");
}

TEST_F(ApiKeyFileTest, ExposureNotChosenMakesNoFileAndChosenMakesLlamaFitsOwn) {
    QStandardPaths::setTestModeEnabled(true);
    QFile::remove(defaultApiKeyFilePath());
    const Result<std::vector<std::string>> refused = prepareExposure("0.0.0.0", {}, false);
    ASSERT_FALSE(refused);
    EXPECT_EQ(refused.error().code, "launch.exposure-not-chosen");
    EXPECT_FALSE(QFile::exists(defaultApiKeyFilePath()));

    const Result<std::vector<std::string>> chosen = prepareExposure("0.0.0.0", {"-t", "2"}, true);
    ASSERT_TRUE(chosen) << chosen.error().message;
    EXPECT_EQ(*chosen,
              (std::vector<std::string>{"-t", "2", "--api-key-file", defaultApiKeyFilePath().toStdString()}));
    EXPECT_TRUE(QFile::exists(defaultApiKeyFilePath()));
    QStandardPaths::setTestModeEnabled(false);
}

} // namespace
} // namespace llamafit
