// The About box names the versions it runs with; switching the theme repaints the charts in
// the new palette (they restyle on PaletteChange).
#include "ui/aboutdialog.h"
#include "ui/appicon.h"
#include "ui/charts/memorychart.h"
#include "ui/sizingsession.h"
#include "ui/theme.h"

#include "core/machine/machineprofile.h"

#include <QApplication>
#include <QLabel>

#include <gtest/gtest.h>
#include <qcustomplot.h>

namespace llamafit {
namespace {

TEST(AboutDialog, NamesQtQCustomPlotAndTheServerBuild) {
    AboutDialog about(QStringLiteral("llama-server 0.7.0 (build 11669)"));
    const QString text = about.findChild<QLabel*>(QStringLiteral("aboutVersionsLabel"))->text();
    EXPECT_TRUE(text.contains(QString::fromLatin1(qVersion()))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral(QCUSTOMPLOT_VERSION_STR))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("0.7.0 (build 11669)"))) << text.toStdString();
    EXPECT_EQ(about.versionsText(), text);
}

TEST(AboutDialog, SaysWhenNoServerWasProbed) {
    AboutDialog about(QString{});
    EXPECT_TRUE(about.versionsText().contains(QStringLiteral("not probed yet")));
}

TEST(AppIcon, HasTheUsualSizesPainted) {
    const QIcon icon = appIcon();
    ASSERT_FALSE(icon.isNull());
    const QImage image = icon.pixmap(64, 64).toImage();
    EXPECT_EQ(image.width(), 64);
    // The background square is painted: the centre is opaque, the corner (rounded) is not.
    EXPECT_EQ(qAlpha(image.pixel(32, 8)), 255);
    EXPECT_EQ(qAlpha(image.pixel(0, 0)), 0);
}

TEST(Theme, SwitchingToDarkRestylesTheCharts) {
    SizingSession session(*findBuiltinMachine(defaultMachineId()));
    MemoryChart chart(&session);
    chart.show();
    applyTheme(ThemeChoice::Light);
    QApplication::processEvents();
    // The plot's background as rendered (QCustomPlot has no getter for its brush).
    const auto backgroundOf = [&chart] {
        return chart.plot()->toPixmap(200, 120).toImage().pixelColor(2, 2);
    };
    const QColor light = backgroundOf();
    applyTheme(ThemeChoice::Dark);
    QApplication::processEvents();
    const QColor dark = backgroundOf();
    EXPECT_LT(dark.lightness(), 80);
    EXPECT_GT(light.lightness(), 200);
    EXPECT_EQ(dark, darkPalette().color(QPalette::Base));
    applyTheme(ThemeChoice::Light);
    QApplication::processEvents();
}

} // namespace
} // namespace llamafit
