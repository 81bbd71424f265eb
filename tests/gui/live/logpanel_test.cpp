// The live view's log panel on real llama-server 0.7.0 logs (tests/data/logs): the level
// filter uses the I/W/E prefix (continuation lines keep their message's level), falls back
// to words without prefixes, search highlights and Enter walks the matches with wrap-around,
// "matching lines only" filters, and the line cap keeps the newest lines.
#include "ui/live/logpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QRegularExpression>
#include <QTest>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

QStringList readLog(const QString& name) {
    QFile file(QStringLiteral(LLAMAFIT_TEST_DATA_DIR "/logs/") + name);
    if (!file.open(QIODevice::ReadOnly)) {
        ADD_FAILURE() << "cannot read " << name.toStdString();
        return {};
    }
    QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty()) {
        lines.removeLast(); // the final newline
    }
    return lines;
}

void chooseLevel(LogPanel& panel, LogLevel level) {
    auto* combo = panel.findChild<QComboBox*>(QStringLiteral("logLevelCombo"));
    ASSERT_NE(combo, nullptr);
    combo->setCurrentIndex(combo->findData(static_cast<int>(level)));
}

TEST(LogPanel, LevelFilterFollowsTheLevelLetters) {
    const QStringList lines = readLog(QStringLiteral("llama1b-f16-fa-off-ctv-q8-error.log"));
    ASSERT_FALSE(lines.isEmpty());
    LogPanel panel;
    panel.appendLines(lines);
    EXPECT_EQ(panel.heldLineCount(), lines.size());
    EXPECT_EQ(panel.shownLineCount(), lines.size());

    chooseLevel(panel, LogLevel::Error);
    EXPECT_EQ(panel.minimumLevel(), LogLevel::Error);
    EXPECT_EQ(panel.shownLineCount(), 5); // the five "E" lines of the load error
    for (const QString& line : panel.shownText().split(QLatin1Char('\n'))) {
        EXPECT_TRUE(line.contains(QStringLiteral(" E "))) << line.toStdString();
    }
    chooseLevel(panel, LogLevel::Warning);
    EXPECT_EQ(panel.shownLineCount(), 6); // plus the API-key warning
    EXPECT_TRUE(panel.shownText().contains(QStringLiteral("no API key is set")));
    chooseLevel(panel, LogLevel::Debug);
    EXPECT_EQ(panel.shownLineCount(), lines.size());
}

TEST(LogPanel, ContinuationLinesKeepTheirMessagesLevel) {
    // The chat template is printed over several lines with the "I" prefix on the first only.
    const QStringList lines = readLog(QStringLiteral("llama1b-f16-c4096-np1.log"));
    ASSERT_TRUE(lines.contains(QStringLiteral("<|im_start|>user")));
    LogPanel panel;
    panel.setMinimumLevel(LogLevel::Warning);
    panel.appendLines(lines);
    EXPECT_EQ(panel.shownLineCount(), 1);
    EXPECT_FALSE(panel.shownText().contains(QStringLiteral("<|im_start|>")));
    panel.setMinimumLevel(LogLevel::Info);
    EXPECT_TRUE(panel.shownText().contains(QStringLiteral("<|im_start|>user")));
}

TEST(LogPanel, WithoutPrefixesTheLevelComesFromTheWords) {
    // --no-log-prefix output: the same lines without "<time> <level> ".
    const QStringList noPrefix = readLog(QStringLiteral("llama1b-f16-c4096-np1-noprefix.log"));
    ASSERT_FALSE(noPrefix.isEmpty());
    ASSERT_FALSE(noPrefix.first().startsWith(QLatin1Char('0')));
    LogPanel plain;
    plain.appendLines(noPrefix);
    plain.setMinimumLevel(LogLevel::Warning);
    EXPECT_EQ(plain.shownLineCount(), 0); // a clean start: no warning or error words
    plain.setMinimumLevel(LogLevel::Info);
    EXPECT_EQ(plain.shownLineCount(), noPrefix.size());

    // The load-error log with its prefixes stripped: only the words are left to go by.
    QStringList stripped;
    const QRegularExpression prefix(QStringLiteral("^[0-9.]+ [IWEDT] "));
    for (QString line : readLog(QStringLiteral("llama1b-f16-fa-off-ctv-q8-error.log"))) {
        stripped.append(line.remove(prefix));
    }
    int errorWords = 0;
    for (const QString& line : stripped) {
        errorWords += line.contains(QStringLiteral("error"), Qt::CaseInsensitive) ||
                              line.contains(QStringLiteral("failed"), Qt::CaseInsensitive)
                          ? 1
                          : 0;
    }
    ASSERT_GT(errorWords, 0);
    LogPanel guessed;
    guessed.setMinimumLevel(LogLevel::Error);
    guessed.appendLines(stripped);
    EXPECT_EQ(guessed.shownLineCount(), errorWords);
    EXPECT_TRUE(guessed.shownText().contains(QStringLiteral("exiting due to model loading error")));
}

TEST(LogPanel, SearchHighlightsAndEnterWalksTheMatchesWithWrapAround) {
    const QStringList lines = readLog(QStringLiteral("llama1b-f16-fa-off-ctv-q8-error.log"));
    LogPanel panel;
    panel.show();
    panel.appendLines(lines);
    const QString word = QStringLiteral("failed to create");
    QList<int> matchLines;
    for (int i = 0; i < lines.size(); ++i) {
        if (lines[i].contains(word, Qt::CaseInsensitive)) {
            matchLines.append(i);
        }
    }
    ASSERT_GE(matchLines.size(), 2);

    auto* search = panel.findChild<QLineEdit*>(QStringLiteral("logSearchEdit"));
    ASSERT_NE(search, nullptr);
    QTest::keyClicks(search, word);
    EXPECT_EQ(panel.highlightCount(), matchLines.size());
    EXPECT_EQ(panel.currentMatchLine(), -1);
    for (int match : matchLines) {
        QTest::keyClick(search, Qt::Key_Return);
        EXPECT_EQ(panel.currentMatchLine(), match);
    }
    QTest::keyClick(search, Qt::Key_Return); // past the last: back to the first
    EXPECT_EQ(panel.currentMatchLine(), matchLines.first());

    auto* matchesOnly = panel.findChild<QCheckBox*>(QStringLiteral("logMatchesOnlyCheck"));
    ASSERT_NE(matchesOnly, nullptr);
    matchesOnly->setChecked(true);
    EXPECT_EQ(panel.shownLineCount(), matchLines.size());
    EXPECT_EQ(panel.highlightCount(), matchLines.size());
    search->clear();
    EXPECT_EQ(panel.shownLineCount(), lines.size());
    EXPECT_EQ(panel.highlightCount(), 0);
}

TEST(LogPanel, LineCapKeepsTheNewestLines) {
    const QStringList lines = readLog(QStringLiteral("llama1b-f16-c4096-np1.log"));
    ASSERT_GT(lines.size(), 60);
    LogPanel panel;
    panel.setMaximumLines(50);
    panel.appendLines(lines.mid(0, 30));
    panel.appendLines(lines.mid(30));
    EXPECT_EQ(panel.heldLineCount(), 50);
    EXPECT_EQ(panel.shownLineCount(), 50);
    EXPECT_TRUE(panel.shownText().endsWith(lines.last()));
    EXPECT_FALSE(panel.shownText().contains(lines.first()));
    panel.clear();
    EXPECT_EQ(panel.heldLineCount(), 0);
    EXPECT_EQ(panel.shownLineCount(), 0);
}

} // namespace
} // namespace llamafit
