// RpcCommandsDialog: the text it shows is the core's script for the chosen format, on the port it
// was given, bound to 127.0.0.1 unless "Listen on all addresses" is ticked -- and then with
// llama.cpp's warning in it; Save writes the core's bytes (the .bat's CRLF kept). The cluster
// panel's button opens it for the selected host's port.
#include "ui/cluster/rpccommandsdialog.h"

#include "core/machine/machineprofile.h"
#include "ui/cluster/clusterpanel.h"
#include "ui/sizingsession.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>

namespace llamafit {
namespace {

using Format = RpcCommandsDialog::Format;

QString normalized(const std::string& script) {
    // QPlainTextEdit shows a CRLF line end as one line break.
    return QString::fromStdString(script).replace(QStringLiteral("\r\n"), QStringLiteral("\n"));
}

struct DialogFixture {
    RpcCommandsDialog dialog{50053};
    QComboBox* format() const { return dialog.findChild<QComboBox*>(QStringLiteral("rpcCommandsFormat")); }
    QCheckBox* allAddresses() const {
        return dialog.findChild<QCheckBox*>(QStringLiteral("rpcCommandsAllAddresses"));
    }
};

TEST(RpcCommandsDialog, LoopbackByDefaultInEveryFormat) {
    DialogFixture fixture;
    RpcServerOptions options;
    options.port = 50053;
    EXPECT_EQ(fixture.dialog.options(), options);
    fixture.format()->setCurrentIndex(static_cast<int>(Format::Shell));
    EXPECT_EQ(fixture.dialog.text(), normalized(*rpcServerShellScript("ggml-rpc-server", options)));
    EXPECT_TRUE(fixture.dialog.text().contains(QStringLiteral("127.0.0.1")));
    EXPECT_TRUE(fixture.dialog.text().contains(QStringLiteral("50053")));
    EXPECT_FALSE(fixture.dialog.text().contains(QString::fromUtf8(kRpcServerExposureWarning.data())));
    fixture.format()->setCurrentIndex(static_cast<int>(Format::Systemd));
    EXPECT_EQ(fixture.dialog.text(), normalized(*rpcServerSystemdUnit("ggml-rpc-server", options)));
    fixture.format()->setCurrentIndex(static_cast<int>(Format::Batch));
    EXPECT_EQ(fixture.dialog.text(), normalized(*rpcServerBatchFile("ggml-rpc-server", options)));
}

TEST(RpcCommandsDialog, AllAddressesBindsAnyAndKeepsLlamaCppsWarning) {
    DialogFixture fixture;
    fixture.allAddresses()->setChecked(true);
    RpcServerOptions options;
    options.port = 50053;
    options.host = "0.0.0.0";
    EXPECT_EQ(fixture.dialog.options(), options);
    for (const Format format : {Format::Shell, Format::Systemd, Format::Batch}) {
        fixture.format()->setCurrentIndex(static_cast<int>(format));
        EXPECT_TRUE(fixture.dialog.text().contains(QStringLiteral("0.0.0.0")))
            << fixture.dialog.text().toStdString();
        EXPECT_TRUE(fixture.dialog.text().contains(QString::fromUtf8(kRpcServerExposureWarning.data())))
            << fixture.dialog.text().toStdString();
    }
    EXPECT_EQ(fixture.dialog.text(), normalized(*rpcServerBatchFile("ggml-rpc-server", options)));
}

TEST(RpcCommandsDialog, SaveWritesTheCoresBytes) {
    DialogFixture fixture;
    fixture.format()->setCurrentIndex(static_cast<int>(Format::Batch));
    QTemporaryDir directory;
    const QString path = directory.filePath(QStringLiteral("rpc.bat"));
    ASSERT_TRUE(fixture.dialog.saveTo(path));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    RpcServerOptions options;
    options.port = 50053;
    EXPECT_EQ(file.readAll().toStdString(), *rpcServerBatchFile("ggml-rpc-server", options));
    EXPECT_FALSE(fixture.dialog.saveTo(directory.filePath(QStringLiteral("no/such/folder/rpc.bat"))));
}

TEST(RpcCommandsDialog, TheClusterPanelOpensItForTheSelectedHostsPort) {
    SizingSession session{*findBuiltinMachine(defaultMachineId())};
    ClusterPanel panel{&session};
    panel.addHost(QStringLiteral("127.0.0.1:50052"), 2048);
    panel.addHost(QStringLiteral("192.168.1.20:50060"), 2048);
    panel.findChild<QTableWidget*>(QStringLiteral("clusterHostTable"))->setCurrentCell(1, 0);
    panel.findChild<QPushButton*>(QStringLiteral("rpcCommandsButton"))->click();
    auto* dialog = panel.findChild<RpcCommandsDialog*>();
    ASSERT_NE(dialog, nullptr);
    EXPECT_TRUE(dialog->isVisible());
    EXPECT_EQ(dialog->options().port, 50060);
    dialog->close();
}

} // namespace
} // namespace llamafit
