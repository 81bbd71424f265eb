// File > Model set... in the composed app: the set view opens for the machine and margin the
// main window plans for, and a set without a machine of its own is planned there.
#include "tests/gui/app/mainwindowfixture.h"
#include "ui/modelset/modelsetdialog.h"

#include <QAction>
#include <QLabel>

#include <fstream>

namespace llamafit {
namespace {

class ModelSetActionTest : public test::MainWindowFixture {};

TEST_F(ModelSetActionTest, OpensTheSetViewForTheSessionsMachine) {
    openWindow();
    auto* action = child<QAction>("modelSetAction");
    ASSERT_NE(action, nullptr);
    action->trigger();
    auto* dialog = m_window->findChild<ModelSetDialog*>(QStringLiteral("modelSetDialog"));
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    const QString setPath = m_directory.filePath(QStringLiteral("one.json"));
    std::ofstream(setPath.toStdString())
        << R"({"models": [{"model": "lib/app-tiny.gguf", "args": ["-c", "512"]}]})";
    ASSERT_TRUE(dialog->openSetFile(setPath));
    const QString machine = dialog->findChild<QLabel*>(QStringLiteral("setMachineLabel"))->text();
    EXPECT_TRUE(machine.contains(QString::fromStdString(m_session->machine().name))) << machine.toStdString();
    ASSERT_TRUE(dialog->plan());
    EXPECT_EQ(dialog->plan()->together.marginBytes, m_session->marginBytes());
    dialog->close();
}

} // namespace
} // namespace llamafit
