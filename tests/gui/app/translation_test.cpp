// The Japanese translation: resources/translations/llamafit_ja.ts is complete, keeps every
// message's placeholders, and, compiled into the app (:/i18n) and installed, turns the real
// MainWindow Japanese; removing it brings English back.
#include "core/machine/machineprofile.h"
#include "core/model/modelsource.h"
#include "core/server/failurefixes.h"
#include "core/sizing/estimator.h"
#include "tests/gui/app/japanesetranslation.h"
#include "ui/charts/memorychart.h"
#include "ui/launch/fixtext.h"
#include "ui/machinepanel.h"
#include "ui/mainwindow.h"
#include "ui/sessionspeed.h"
#include "ui/sizingsession.h"
#include "ui/translation.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QFile>
#include <QGroupBox>
#include <QLabel>
#include <QMenuBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTranslator>
#include <QXmlStreamReader>

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <utility>
#include <vector>

namespace llamafit {
namespace {

const QString kTsPath = QStringLiteral(LLAMAFIT_TEST_DATA_DIR "/../../resources/translations/llamafit_ja.ts");

struct TsMessage {
    QString context;
    QString source;
    QStringList translations; // one, or one per <numerusform>
    bool unfinished = false;
    qint64 line = 0;
};

// Every <message> of a Qt Linguist .ts file, read with QXmlStreamReader.
std::vector<TsMessage> readTsFile(const QString& path, QString* error) {
    std::vector<TsMessage> messages;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return messages;
    }
    QXmlStreamReader xml(&file);
    QString context;
    TsMessage message;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            const auto name = xml.name();
            if (name == QLatin1String("name")) {
                context = xml.readElementText();
            } else if (name == QLatin1String("message")) {
                message = TsMessage{context, {}, {}, false, xml.lineNumber()};
            } else if (name == QLatin1String("source")) {
                message.source = xml.readElementText();
            } else if (name == QLatin1String("translation")) {
                message.unfinished =
                    xml.attributes().value(QLatin1String("type")) == QLatin1String("unfinished");
                // A numerus message holds <numerusform> children; a plain one holds the text.
                QString text;
                while (!(xml.isEndElement() && xml.name() == QLatin1String("translation")) && !xml.atEnd()) {
                    xml.readNext();
                    if (xml.isCharacters()) {
                        text += xml.text();
                    } else if (xml.isStartElement() && xml.name() == QLatin1String("numerusform")) {
                        message.translations << xml.readElementText();
                        text.clear();
                    }
                }
                if (message.translations.isEmpty()) {
                    message.translations << text;
                }
            }
        } else if (xml.isEndElement() && xml.name() == QLatin1String("message")) {
            messages.push_back(message);
        }
    }
    if (xml.hasError()) {
        *error = QStringLiteral("%1 at line %2").arg(xml.errorString()).arg(xml.lineNumber());
    }
    return messages;
}

std::vector<TsMessage> readJapanese() {
    QString error;
    std::vector<TsMessage> messages = readTsFile(kTsPath, &error);
    EXPECT_TRUE(error.isEmpty()) << error.toStdString();
    return messages;
}

// The placeholders QString::arg and tr(..., n) fill: %1..%99 (optionally %L1) and %n, sorted.
QStringList placeholders(const QString& text) {
    static const QRegularExpression pattern(QStringLiteral("%L?(?:[1-9][0-9]?|n)"));
    QStringList found;
    for (auto it = pattern.globalMatch(text); it.hasNext();) {
        found << it.next().captured(0);
    }
    found.sort();
    return found;
}

// The English sources that the Japanese file really changes ("OK", "%1 MiB" stay as they are).
QSet<QString> translatedEnglishSources() {
    QSet<QString> sources;
    for (const TsMessage& message : readJapanese()) {
        if (!message.translations.contains(message.source)) {
            sources.insert(message.source);
        }
    }
    return sources;
}

// A real MainWindow with no library folders, no device discovery and its own settings file and
// profile folder.
class WindowUnderTest {
  public:
    WindowUnderTest()
        : m_session(*findBuiltinMachine(defaultMachineId())),
          m_settings(m_dir.filePath(QStringLiteral("llamafit.ini")), QSettings::IniFormat) {
        MainWindowOptions options;
        options.libraryRoots = LibraryRoots{};
        options.detectDevices = false;
        options.profileFolder = m_dir.filePath(QStringLiteral("profiles"));
        m_window = std::make_unique<MainWindow>(&m_session, &m_settings, AppSettings{}, options);
        m_window->show();
    }

    MainWindow& window() { return *m_window; }
    QString fileMenuTitle() const {
        const QList<QAction*> menus = m_window->menuBar()->actions();
        return menus.isEmpty() ? QString() : menus.first()->text();
    }
    QString dockTitle(const QString& objectName) const {
        const auto* dock = m_window->findChild<QDockWidget*>(objectName);
        return dock ? dock->windowTitle() : QStringLiteral("<no %1>").arg(objectName);
    }

  private:
    QTemporaryDir m_dir;
    SizingSession m_session;
    QSettings m_settings;
    std::unique_ptr<MainWindow> m_window;
};

// "objectName/class: text" for every shown label, button, check box, group box title, dock
// title, tab and menu entry whose text is still an English source the .ts translates.
QStringList englishLeftIn(MainWindow& window, const QSet<QString>& english) {
    QStringList found;
    const auto check = [&](const QObject* owner, const QString& text) {
        if (english.contains(text)) {
            found << QStringLiteral("%1/%2: %3")
                         .arg(owner->objectName(), QLatin1String(owner->metaObject()->className()), text);
        }
    };
    for (const QWidget* widget : window.findChildren<QWidget*>()) {
        if (!widget->isVisibleTo(&window)) {
            continue;
        }
        if (const auto* label = qobject_cast<const QLabel*>(widget)) {
            check(label, label->text());
        } else if (const auto* button = qobject_cast<const QAbstractButton*>(widget)) {
            check(button, button->text());
        } else if (const auto* group = qobject_cast<const QGroupBox*>(widget)) {
            check(group, group->title());
        } else if (const auto* dock = qobject_cast<const QDockWidget*>(widget)) {
            check(dock, dock->windowTitle());
        } else if (const auto* tabs = qobject_cast<const QTabWidget*>(widget)) {
            for (int i = 0; i < tabs->count(); ++i) {
                check(tabs, tabs->tabText(i));
            }
        }
    }
    for (const QAction* menu : window.menuBar()->actions()) {
        check(menu, menu->text());
    }
    return found;
}

TEST(Translation, EveryMessageIsTranslated) {
    const std::vector<TsMessage> messages = readJapanese();
    ASSERT_GT(messages.size(), 300u) << "the .ts lost its messages: run scripts/update-translations.sh";
    for (const TsMessage& message : messages) {
        EXPECT_FALSE(message.unfinished)
            << message.context.toStdString() << ": " << message.source.toStdString();
        for (const QString& translation : message.translations) {
            EXPECT_FALSE(translation.trimmed().isEmpty())
                << "line " << message.line << ": " << message.source.toStdString();
        }
    }
}

TEST(Translation, EveryTranslationKeepsTheSourcesPlaceholders) {
    const std::vector<TsMessage> messages = readJapanese();
    ASSERT_FALSE(messages.empty());
    for (const TsMessage& message : messages) {
        for (const QString& translation : message.translations) {
            EXPECT_EQ(placeholders(translation), placeholders(message.source))
                << "line " << message.line << " (" << message.context.toStdString()
                << "): " << message.source.toStdString() << " -> " << translation.toStdString();
        }
    }
}

TEST(Translation, PlaceholderCheckSeesAMissingOrRepeatedArgument) {
    // The comparison above must be able to fail: a dropped, a repeated and a %n placeholder.
    EXPECT_NE(placeholders(QStringLiteral("最大 %1")), placeholders(QStringLiteral("%1 of %2")));
    EXPECT_NE(placeholders(QStringLiteral("%1 %1")), placeholders(QStringLiteral("%1")));
    EXPECT_NE(placeholders(QStringLiteral("%n 個")), placeholders(QStringLiteral("items")));
    EXPECT_EQ(placeholders(QStringLiteral("%2 の %1")), placeholders(QStringLiteral("%1 in %2")));
}

TEST(Translation, MainWindowIsJapaneseAndEnglishReturnsWhenRemoved) {
    const QSet<QString> english = translatedEnglishSources();
    ASSERT_TRUE(english.contains(QStringLiteral("&File")));
    const qsizetype translatorsBefore = QCoreApplication::instance()->findChildren<QTranslator*>().size();
    {
        JapaneseTranslation japanese;
        ASSERT_EQ(japanese.language(), QStringLiteral("ja")) << "no :/i18n/llamafit_ja.qm in the binary";
        ASSERT_GE(japanese.installedCount(), 1);

        WindowUnderTest shown;
        EXPECT_EQ(shown.fileMenuTitle(), QStringLiteral("ファイル(&F)"));
        EXPECT_EQ(shown.dockTitle(QStringLiteral("modelsDock")), QStringLiteral("モデル"));
        EXPECT_EQ(shown.dockTitle(QStringLiteral("machineDock")), QStringLiteral("マシン"));
        EXPECT_EQ(shown.dockTitle(QStringLiteral("settingsDock")), QStringLiteral("設定"));
        EXPECT_EQ(shown.dockTitle(QStringLiteral("adviceDock")), QStringLiteral("アドバイス"));
        EXPECT_EQ(shown.dockTitle(QStringLiteral("launchDock")), QStringLiteral("起動"));
        // The checked kinds really are there: an empty scan would pass without looking.
        EXPECT_GT(shown.window().findChildren<QLabel*>().size(), 10);
        EXPECT_GT(shown.window().findChildren<QPushButton*>().size(), 3);
        EXPECT_GT(shown.window().findChildren<QCheckBox*>().size(), 0);
        const QStringList left = englishLeftIn(shown.window(), english);
        EXPECT_TRUE(left.isEmpty()) << "still English:\n" << left.join(QLatin1Char('\n')).toStdString();
        // The Cluster dock is tabbed behind the Machine dock: in front for a scan of its own.
        EXPECT_EQ(shown.dockTitle(QStringLiteral("clusterDock")), QStringLiteral("クラスター"));
        auto* cluster = shown.window().findChild<QDockWidget*>(QStringLiteral("clusterDock"));
        ASSERT_NE(cluster, nullptr);
        cluster->raise();
        ASSERT_TRUE(QTest::qWaitFor([&] { return cluster->widget()->isVisibleTo(&shown.window()); }));
        const auto* addHost = cluster->findChild<QPushButton*>(QStringLiteral("addHostButton"));
        ASSERT_NE(addHost, nullptr);
        EXPECT_EQ(addHost->text(), QStringLiteral("ホストを追加"));
        const QStringList leftInCluster = englishLeftIn(shown.window(), english);
        EXPECT_TRUE(leftInCluster.isEmpty()) << "still English:\n"
                                             << leftInCluster.join(QLatin1Char('\n')).toStdString();

        japanese.remove();
        WindowUnderTest englishAgain;
        EXPECT_EQ(englishAgain.fileMenuTitle(), QStringLiteral("&File"));
        EXPECT_EQ(englishAgain.dockTitle(QStringLiteral("modelsDock")), QStringLiteral("Models"));
    }
    EXPECT_EQ(QCoreApplication::instance()->findChildren<QTranslator*>().size(), translatorsBefore);
}

// The BIOS split advice is the core's numbers worded by the panel: Japanese in the Japanese UI.
QString biosAdvice() {
    SizingSession session(*findBuiltinMachine(defaultMachineId())); // the EVO-X2, an APU
    MachinePanel panel(&session);
    const auto* label = panel.findChild<QLabel*>(QStringLiteral("biosAdviceLabel"));
    return label ? label->text() : QStringLiteral("<no biosAdviceLabel>");
}

TEST(Translation, BiosSplitAdviceInTheMachinePanelIsJapanese) {
    const QString english = biosAdvice();
    ASSERT_TRUE(english.contains(QStringLiteral("leaves the most system RAM")) ||
                english.contains(QStringLiteral("No offered split fits")))
        << english.toStdString();
    JapaneseTranslation japanese;
    ASSERT_EQ(japanese.language(), QStringLiteral("ja"));
    const QString translated = biosAdvice();
    EXPECT_NE(translated, english);
    EXPECT_TRUE(translated.contains(QStringLiteral("システム RAM を残します")) ||
                translated.contains(QStringLiteral("収まる割り当てがありません")))
        << translated.toStdString();
    for (const QString& word : {QStringLiteral("leaves"), QStringLiteral("free"), QStringLiteral("system"),
                                QStringLiteral("split")}) {
        EXPECT_FALSE(translated.contains(word)) << translated.toStdString();
    }
}

// The rule behind a number is the core's values worded by the chart: the memory chart's hover
// over the KV cache of the RTX 4060 with Llama-3-8B, with the llama.cpp source path untranslated.
QString kvCacheHover() {
    SizingSession session(*findBuiltinMachine("rtx-4060-8gb"));
    Result<LoadedModel> model = loadModel("llama-3-8b-q4_k_m");
    if (!model) {
        return QString::fromStdString(model.error().message);
    }
    session.setModel(std::move(*model));
    MemoryChart chart(&session);
    return chart.toolTipAt(session.machine().gpus.at(0).poolIndex, Component::Kv);
}

TEST(Translation, TheRuleInTheMemoryChartsHoverIsJapanese) {
    const QString english = kvCacheHover();
    ASSERT_TRUE(english.contains(QStringLiteral("KV cache: ")) &&
                english.contains(QStringLiteral(" cells x ")))
        << english.toStdString();
    JapaneseTranslation japanese;
    ASSERT_EQ(japanese.language(), QStringLiteral("ja"));
    const QString translated = kvCacheHover();
    EXPECT_TRUE(translated.contains(QStringLiteral("KVキャッシュ: ")) &&
                translated.contains(QStringLiteral(" セル × ")))
        << translated.toStdString();
    EXPECT_TRUE(translated.contains(QStringLiteral("src/llama-kv-cache.cpp"))) << translated.toStdString();
    for (const QString& word : {QStringLiteral("cells"), QStringLiteral("streams")}) {
        EXPECT_FALSE(translated.contains(word)) << translated.toStdString();
    }
}

// A fix after a KV-cache allocation failure on the CPU (half the KV cache short):
// the core's diagnosis worded by the failure dialog's fixtext, as "summary|button|tooltip".
QString kvFailureFixTexts() {
    SizingSession session(*findBuiltinMachine("cpu-only"));
    Result<LoadedModel> model = loadModel("llama-3-8b-q4_k_m");
    if (!model) {
        return QString::fromStdString(model.error().message);
    }
    session.setModel(std::move(*model));
    ServerSettings settings = session.settings();
    settings.contextTokens = 8192;
    const Result<MemoryEstimate> estimate = estimateMemory(session.sizingModel(), settings, session.gpus());
    if (!estimate) {
        return QString::fromStdString(estimate.error().message);
    }
    const DeviceEstimate& cpu = estimate->devices.at(0);
    AllocationFailure failure;
    failure.bufferType = "CPU";
    failure.failedBytes = cpu.bytes.kvBytes;
    failure.phase = AllocationPhase::KvCache;
    const Result<FailureDiagnosis> diagnosis =
        diagnoseAllocationFailure(session.sizingModel(), settings, session.gpus(), failure,
                                  cpu.bytes.totalBytes() - cpu.bytes.kvBytes / 2);
    if (!diagnosis) {
        return QString::fromStdString(diagnosis.error().message);
    }
    if (diagnosis->fixes.empty()) {
        return QStringLiteral("<no fix> ") + diagnosisSummaryText(*diagnosis);
    }
    const FailureFix& fix = diagnosis->fixes.front();
    return diagnosisSummaryText(*diagnosis) + u'|' + fixChangeText(fix) + u'|' +
           fixSentenceText(fix, *diagnosis);
}

TEST(Translation, TheFailureDiagnosisAndItsFixesAreJapanese) {
    const QString english = kvFailureFixTexts();
    ASSERT_TRUE(english.startsWith(QStringLiteral("the KV cache (")) &&
                english.contains(QStringLiteral("|context 8192 → ")) &&
                english.contains(QStringLiteral("|Use a context of ")))
        << english.toStdString();
    JapaneseTranslation japanese;
    ASSERT_EQ(japanese.language(), QStringLiteral("ja"));
    const QString translated = kvFailureFixTexts();
    EXPECT_TRUE(translated.startsWith(QStringLiteral("KVキャッシュ (")) &&
                translated.contains(QStringLiteral("CPU に収まりませんでした")) &&
                translated.contains(QStringLiteral("|コンテキスト長 8192 → ")) &&
                translated.contains(QStringLiteral("トークンにする (会話が短くなる)")))
        << translated.toStdString();
    for (const QString& word : {QStringLiteral("did not fit"), QStringLiteral("context"),
                                QStringLiteral("needs"), QStringLiteral("available")}) {
        EXPECT_FALSE(translated.contains(word)) << translated.toStdString();
    }
}

// Where a speed figure comes from is worded by the GUI, so it follows the language ("public
// defaults for Vulkan, MoE (docs/speed.md)" stayed English in the Japanese window).
TEST(Translation, TheSpeedFiguresSourceIsJapanese) {
    const SpeedEfficiency defaults = defaultSpeedEfficiency(Backend::Vulkan, true);
    EXPECT_EQ(efficiencySourceText(defaults).toStdString(), defaults.description);
    const SpeedEfficiency learned = learnSpeedEfficiency(
        Backend::Cuda, false, {EfficiencySample{Backend::Cuda, false, false, 70, 100, true}});
    EXPECT_EQ(efficiencySourceText(learned).toStdString(), learned.description);
    JapaneseTranslation japanese;
    ASSERT_EQ(japanese.language(), QStringLiteral("ja"));
    EXPECT_EQ(efficiencySourceText(defaults), QStringLiteral("Vulkan の公開既定値、MoE (docs/speed.md)"));
    EXPECT_TRUE(efficiencySourceText(learned).contains(QStringLiteral("1 回のライブ実行")))
        << efficiencySourceText(learned).toStdString();
}

TEST(Translation, EnglishScanFindsTheUntranslatedWindow) {
    // Without the translation the same scan must report English, or the check above proves nothing.
    const QSet<QString> english = translatedEnglishSources();
    WindowUnderTest shown;
    const QStringList left = englishLeftIn(shown.window(), english);
    EXPECT_TRUE(left.contains(QStringLiteral("modelsDock/QDockWidget: Models")))
        << left.join(QLatin1Char('\n')).toStdString();
    EXPECT_GT(left.size(), 20);
}

} // namespace
} // namespace llamafit
