// LaunchPanel's widgets: layout, object names, tooltips (each names the llama-server flag it
// sets) and the connections from the controls to the panel.

#include "ui/launch/launchpanel.h"

#include "core/system/apikeyfile.h"

#include <QCheckBox>
#include <QClipboard>
#include <QDir>
#include <QFontDatabase>
#include <QFormLayout>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>

namespace llamafit {

void LaunchPanel::buildWidgets() {
    auto* form = new QFormLayout(this);

    m_binaryEdit = new QLineEdit(this);
    m_binaryEdit->setObjectName(QStringLiteral("serverBinaryEdit"));
    m_binaryEdit->setPlaceholderText(tr("llama-server not found on PATH: choose it with Browse"));
    m_binaryEdit->setToolTip(tr("The llama-server program to run (default: $LLAMAFIT_LLAMA_SERVER, "
                                "else llama-server on PATH)"));
    m_browseButton = new QPushButton(tr("Browse…"), this);
    m_browseButton->setObjectName(QStringLiteral("serverBrowseButton"));
    m_browseButton->setToolTip(tr("Choose the llama-server program"));
    m_versionLabel = new QLabel(this);
    m_versionLabel->setObjectName(QStringLiteral("serverVersionLabel"));
    m_versionLabel->setToolTip(tr("The build, as `llama-server --version` reports it; the flags are spelled "
                                  "the way this build knows them"));
    m_versionLabel->setWordWrap(true);
    m_versionLabel->setTextFormat(Qt::PlainText);
    // One row for the program and its version, one for the address: the dock stays short and
    // leaves the height to the charts.
    auto* binaryRow = new QHBoxLayout;
    binaryRow->addWidget(m_binaryEdit, 2);
    binaryRow->addWidget(m_browseButton);
    binaryRow->addWidget(m_versionLabel, 1);
    form->addRow(tr("llama-server:"), binaryRow);

    m_hostEdit = new QLineEdit(QStringLiteral("127.0.0.1"), this);
    m_hostEdit->setObjectName(QStringLiteral("hostEdit"));
    m_hostEdit->setToolTip(tr("--host: the address llama-server listens on (127.0.0.1: this computer only)"));
    m_hostWarning = new QLabel(this);
    m_hostWarning->setObjectName(QStringLiteral("hostWarningLabel"));
    m_hostWarning->setWordWrap(true);
    m_hostWarning->setVisible(false);
    m_exposeCheck = new QCheckBox(tr("Allow access from the network"), this);
    m_exposeCheck->setObjectName(QStringLiteral("exposeCheck"));
    m_exposeCheck->setToolTip(
        tr("llama-server has no authentication of its own. With this box ticked a non-loopback host "
           "(e.g. 0.0.0.0) is allowed, and LlamaFit starts llama-server with --api-key-file %1, a key "
           "generated once in a file only you can read; clients send it as \"Authorization: Bearer KEY\".")
            .arg(QDir::toNativeSeparators(defaultApiKeyFilePath())));

    m_portSpin = new QSpinBox(this);
    m_portSpin->setObjectName(QStringLiteral("portSpin"));
    m_portSpin->setRange(0, 65535);
    m_portSpin->setSpecialValueText(tr("any free port"));
    m_portSpin->setToolTip(tr("--port: the TCP port (0: any free port, picked at launch)"));
    auto* addressRow = new QHBoxLayout;
    addressRow->addWidget(m_hostEdit, 1);
    addressRow->addWidget(new QLabel(tr("port"), this));
    addressRow->addWidget(m_portSpin);
    addressRow->addWidget(m_exposeCheck);
    addressRow->addWidget(m_hostWarning, 1);
    form->addRow(tr("Host:"), addressRow);

    m_commandLine = new QLineEdit(this);
    m_commandLine->setObjectName(QStringLiteral("commandLineEdit"));
    m_commandLine->setReadOnly(true);
    m_commandLine->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_commandLine->setToolTip(tr("The exact command Launch runs (-lv 4 and --metrics feed the live view; "
                                 "with port 0 a free --port is added at launch)"));
    m_copyButton = new QPushButton(tr("Copy"), this);
    m_copyButton->setObjectName(QStringLiteral("copyCommandButton"));
    m_copyButton->setToolTip(tr("Copy the command line to the clipboard"));
    m_exportButton = new QToolButton(this);
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setText(tr("Export"));
    m_exportButton->setToolTip(tr("Save this launch as a shell script, a Windows .bat, a llama-server preset "
                                  "(--models-preset) or a llama-swap entry"));
    m_exportButton->setPopupMode(QToolButton::InstantPopup);
    auto* exportMenu = new QMenu(m_exportButton);
    exportMenu->setObjectName(QStringLiteral("exportMenu"));
    for (ExportFormat format : kExportFormats) {
        QAction* action = exportMenu->addAction(exportFormatLabel(format));
        action->setObjectName(exportActionObjectName(format));
        connect(action, &QAction::triggered, this, [this, format] { chooseExport(format); });
    }
    m_exportButton->setMenu(exportMenu);
    auto* commandRow = new QHBoxLayout;
    commandRow->addWidget(m_commandLine, 1);
    commandRow->addWidget(m_copyButton);
    commandRow->addWidget(m_exportButton);
    form->addRow(tr("Command:"), commandRow);

    m_notesLabel = new QLabel(this);
    m_notesLabel->setObjectName(QStringLiteral("launchNotesLabel"));
    m_notesLabel->setToolTip(tr("Flags spelled differently for the probed llama-server build"));
    m_notesLabel->setWordWrap(true);
    m_notesLabel->setVisible(false);
    form->addRow(QString(), m_notesLabel);

    m_projectionLabel = new QLabel(this);
    m_projectionLabel->setObjectName(QStringLiteral("projectionCheckLabel"));
    m_projectionLabel->setToolTip(
        tr("llama.cpp's own projection of these settings (llama-fit-params --fit-print on, "
           "run in the background after each change) next to LlamaFit's, per device"));
    m_projectionLabel->setWordWrap(true);
    m_projectionLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    form->addRow(tr("llama.cpp:"), m_projectionLabel);

    m_launchButton = new QPushButton(tr("Launch"), this);
    m_launchButton->setObjectName(QStringLiteral("launchButton"));
    m_stopButton = new QPushButton(tr("Stop"), this);
    m_stopButton->setObjectName(QStringLiteral("stopButton"));
    m_stopButton->setToolTip(tr("Stop llama-server (SIGTERM, then SIGKILL after a grace period)"));
    m_stateLabel = new QLabel(this);
    m_stateLabel->setObjectName(QStringLiteral("serverStateLabel"));
    m_stateLabel->setWordWrap(true);
    m_stateLabel->setTextFormat(Qt::PlainText);
    m_stateLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* launchRow = new QHBoxLayout;
    launchRow->addWidget(m_launchButton);
    launchRow->addWidget(m_stopButton);
    launchRow->addWidget(m_stateLabel, 1);
    form->addRow(tr("Server:"), launchRow);

    connect(m_binaryEdit, &QLineEdit::editingFinished, this, &LaunchPanel::onBinaryEdited);
    connect(m_browseButton, &QPushButton::clicked, this, &LaunchPanel::browse);
    connect(m_hostEdit, &QLineEdit::textChanged, this, &LaunchPanel::refresh);
    connect(m_portSpin, &QSpinBox::valueChanged, this, &LaunchPanel::refresh);
    connect(m_exposeCheck, &QCheckBox::toggled, this, &LaunchPanel::refresh);
    connect(m_copyButton, &QPushButton::clicked, this,
            [this] { QGuiApplication::clipboard()->setText(commandLine()); });
    connect(m_launchButton, &QPushButton::clicked, this, &LaunchPanel::launch);
    connect(m_stopButton, &QPushButton::clicked, this, &LaunchPanel::stop);
}

} // namespace llamafit
