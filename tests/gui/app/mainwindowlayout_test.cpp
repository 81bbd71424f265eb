// MainWindow on small screens (issue 11 item 7): shown on the default card at 1366 x 768 (the
// window on that screen) and 1366 x 705 (maximized there, under a panel and the title bar), and
// at 1920 x 1080, every control of the Settings, Advice and Launch docks is shown whole: its
// rectangle lies inside the window and inside every ancestor (no dock edge, scroll viewport or
// fold cuts it), and it is not narrower than its size hint where narrower means cut text (the
// slots box read "auto (4, un", the advice buttons "Largest context t"), nor than its minimum
// size hint elsewhere. A word-wrapped label is as high as its text needs at its width. Checked on
// the default card and on a file with a NextN block with MTP drafting on (one row more).
#include "tests/gui/app/japanesetranslation.h"
#include "tests/gui/app/mainwindowfixture.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSlider>

#include <qcustomplot.h>

namespace llamafit {
namespace {

// A widget the user reads or operates, as opposed to a container or a part of a control (the
// line edit inside a spin box or an editable combo, a scroll area's bars).
bool isControl(const QWidget* widget) {
    for (const QWidget* parent = widget->parentWidget(); parent != nullptr; parent = parent->parentWidget()) {
        if (qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QComboBox*>(parent)) {
            return false;
        }
    }
    if (qobject_cast<const QScrollBar*>(widget)) {
        return false;
    }
    if (const auto* label = qobject_cast<const QLabel*>(widget)) {
        return !label->text().isEmpty(); // an empty label shows nothing to cut
    }
    return qobject_cast<const QAbstractButton*>(widget) || qobject_cast<const QComboBox*>(widget) ||
           qobject_cast<const QAbstractSpinBox*>(widget) || qobject_cast<const QLineEdit*>(widget) ||
           qobject_cast<const QSlider*>(widget);
}

// The width below which the control's text is cut: its size hint for a control that shows its
// text on one line (a button, check box, combo, spin box, unwrapped label); its minimum size
// hint for the rest (a line edit scrolls its text, a slider and a wrapped label shrink).
int wholeWidth(const QWidget* widget) {
    const auto* label = qobject_cast<const QLabel*>(widget);
    const bool oneLine =
        (label != nullptr && !label->wordWrap()) || qobject_cast<const QAbstractButton*>(widget) ||
        qobject_cast<const QComboBox*>(widget) || qobject_cast<const QAbstractSpinBox*>(widget);
    return oneLine ? widget->sizeHint().width() : widget->minimumSizeHint().width();
}

QString describe(const QWidget* widget) {
    QString text;
    if (const auto* label = qobject_cast<const QLabel*>(widget)) {
        text = label->text();
    } else if (const auto* button = qobject_cast<const QAbstractButton*>(widget)) {
        text = button->text();
    }
    return QStringLiteral("%1 (%2%3)")
        .arg(widget->objectName().isEmpty() ? QStringLiteral("unnamed") : widget->objectName(),
             QLatin1String(widget->metaObject()->className()),
             text.isEmpty() ? QString() : QStringLiteral(" \"%1\"").arg(text.left(40)));
}

QString rectText(const QRect& rect) {
    return QStringLiteral("%1,%2 %3x%4").arg(rect.x()).arg(rect.y()).arg(rect.width()).arg(rect.height());
}

// One line per control of the dock that is cut: outside an ancestor, or narrower than whole.
QStringList cutControls(QWidget& window, const QDockWidget& dock) {
    QStringList cut;
    for (const QWidget* widget : dock.widget()->findChildren<QWidget*>()) {
        if (!widget->isVisibleTo(&window) || !isControl(widget)) {
            continue;
        }
        const QRect rect(widget->mapTo(&window, QPoint(0, 0)), widget->size());
        QRect visible = rect;
        for (const QWidget* ancestor = widget->parentWidget(); ancestor != nullptr;
             ancestor = ancestor->parentWidget()) {
            visible &= QRect(ancestor->mapTo(&window, QPoint(0, 0)), ancestor->size());
        }
        if (visible != rect) {
            cut << QStringLiteral("%1 at %2 shows only %3")
                       .arg(describe(widget), rectText(rect),
                            visible.isEmpty() ? QStringLiteral("nothing") : rectText(visible));
        }
        if (widget->width() < wholeWidth(widget)) {
            cut << QStringLiteral("%1 is %2 px wide, its text needs %3")
                       .arg(describe(widget))
                       .arg(widget->width())
                       .arg(wholeWidth(widget));
        }
        if (const auto* label = qobject_cast<const QLabel*>(widget);
            label != nullptr && label->wordWrap() &&
            label->height() < label->heightForWidth(label->width())) {
            cut << QStringLiteral("%1 is %2 px high, its text needs %3 at %4 px wide")
                       .arg(describe(widget))
                       .arg(label->height())
                       .arg(label->heightForWidth(label->width()))
                       .arg(label->width());
        }
    }
    return cut;
}

class MainWindowLayoutTest : public test::MainWindowFixture, public ::testing::WithParamInterface<QSize> {
  protected:
    // Every control of the three docks whole, and the window at the size asked for.
    void expectEveryControlWhole(QSize size) {
        // The layout requests the last change posted (docks, scroll areas, word-wrapped labels).
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        // A window whose minimum is larger than the screen is not placed at this size at all.
        EXPECT_EQ(m_window->size(), size) << "the window's minimum is " << m_window->minimumSizeHint().width()
                                          << "x" << m_window->minimumSizeHint().height();
        for (const char* name : {"settingsDock", "adviceDock", "launchDock"}) {
            auto* dock = child<QDockWidget>(name);
            ASSERT_NE(dock, nullptr);
            ASSERT_TRUE(dock->isVisible()) << name;
            ASSERT_FALSE(dock->isFloating()) << name;
            const QStringList cut = cutControls(*m_window, *dock);
            EXPECT_TRUE(cut.isEmpty()) << name << " at " << size.width() << "x" << size.height() << ":\n"
                                       << cut.join(QLatin1Char('\n')).toStdString();
        }
    }
};

TEST_P(MainWindowLayoutTest, EveryControlOfTheSettingsAdviceAndLaunchDocksIsShownWhole) {
    const QSize size = GetParam();
    openWindow(size);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
    ASSERT_EQ(m_session->model().cardId, std::string(defaultModelCardId()));
    expectEveryControlWhole(size);
}

// A file with a NextN block adds the MTP row to Settings and, with MTP on, the draft context's
// segment and legend entry to the chart: still whole.
TEST_P(MainWindowLayoutTest, EveryControlIsShownWholeWithMtpDraftingOn) {
    const QSize size = GetParam();
    const auto spec = test::loadModelSpecFile(test::shapesDirectory() + "/mtp/qwen35moe-mtp.json");
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    const QString path = m_directory.filePath(QStringLiteral("lib/qwen35moe-mtp.gguf"));
    ASSERT_TRUE(test::writeSpecAsGguf(*spec, path.toStdString()).ok()); // sparse
    openWindow(size);
    ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
    ASSERT_TRUE(m_window->chooseModel(path));
    ServerSettings settings = m_session->settings();
    settings.speculative.types = {SpeculativeType::DraftMtp};
    m_session->setSettings(settings);
    ASSERT_TRUE(m_session->estimate().ok()) << m_session->estimate().error().message;
    ASSERT_TRUE(child<QCheckBox>("mtpDraftCheck")->isVisible());
    expectEveryControlWhole(size);
}

// The picture the product exists for stays readable: on every screen and in both languages the
// window fits the screen, the memory chart is at least a third of its height and its bars' area (the
// axis rectangle, under the legend and the notes) a fifth (at 1366 x 768 the bars were once 60 px
// tall; in Japanese the window was 1413 px wide).
TEST_P(MainWindowLayoutTest, TheMemoryChartIsAThirdOfTheWindowInBothLanguages) {
    const QSize size = GetParam();
    for (const bool japanese : {false, true}) {
        std::optional<JapaneseTranslation> translation;
        if (japanese) {
            translation.emplace();
            ASSERT_EQ(translation->language(), QStringLiteral("ja"));
        }
        openWindow(size);
        ASSERT_TRUE(QTest::qWaitForWindowExposed(m_window.get()));
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
        const char* language = japanese ? "Japanese" : "English";
        EXPECT_LE(m_window->minimumSizeHint().width(), size.width()) << language;
        EXPECT_EQ(m_window->size(), size) << language;
        auto* chart = m_window->findChild<MemoryChart*>();
        ASSERT_NE(chart, nullptr);
        ASSERT_TRUE(chart->isVisible());
        EXPECT_GE(chart->height() * 3, m_window->height())
            << language << ": the chart is " << chart->height() << " px of " << m_window->height();
        // The bars' own area, between the axes and above the legend: a fifth of the window at least.
        const int bars = chart->plot()->axisRect()->height();
        EXPECT_GE(bars * 5, m_window->height()) << language << ": the bars' area is " << bars << " px";
        closeWindow();
        m_window.reset();
    }
}

INSTANTIATE_TEST_SUITE_P(Screens, MainWindowLayoutTest,
                         ::testing::Values(QSize(1366, 768), QSize(1366, 705), QSize(1920, 1080)),
                         [](const ::testing::TestParamInfo<QSize>& info) {
                             return std::to_string(info.param.width()) + "x" +
                                    std::to_string(info.param.height());
                         });

} // namespace
} // namespace llamafit
