// LaunchPanel: binary, version, address, command line, exports, Launch / Stop, state.

#include "ui/launch/launchpanel.h"

#include "ui/launch/failuredialog.h"
#include "ui/sizingsession.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QHostAddress>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>

namespace llamafit {

namespace {

bool isLoopbackHost(const QString& host) {
    if (host.compare(QStringLiteral("localhost"), Qt::CaseInsensitive) == 0) {
        return true;
    }
    const QHostAddress address(host);
    return !address.isNull() && address.isLoopback();
}

bool isRunning(ServerProcess::State state) {
    return state != ServerProcess::State::Stopped && state != ServerProcess::State::Failed;
}

} // namespace

LaunchPanel::LaunchPanel(SizingSession* session, ServerProcess* process, QWidget* parent)
    : QWidget(parent), m_session(session), m_process(process), m_launcher(process) {
    setObjectName(QStringLiteral("launchPanel"));
    buildWidgets();
    connect(m_session, &SizingSession::modelChanged, this, &LaunchPanel::refresh);
    connect(m_session, &SizingSession::extraArgsChanged, this, &LaunchPanel::refresh);
    connect(m_session, &SizingSession::estimateChanged, this, &LaunchPanel::refresh);
    connect(m_process, &ServerProcess::stateChanged, this, &LaunchPanel::onProcessState);
    connect(m_process, &ServerProcess::failed, this, &LaunchPanel::onProcessFailed);
    connect(&m_launcher, &ServerLauncher::probed, this, &LaunchPanel::onProbed);
    connect(&m_launcher, &ServerLauncher::refused, this, &LaunchPanel::onRefused);
    connect(&m_launcher, &ServerLauncher::notes, this, [this](const QStringList& notes) {
        m_notesLabel->setText(tr("Re-spelled for this build: %1").arg(notes.join(QStringLiteral("; "))));
        m_notesLabel->setVisible(true);
    });
    setServerBinary(defaultServerBinary());
}

QString LaunchPanel::defaultServerBinary() {
    const QString fromEnvironment = qEnvironmentVariable("LLAMAFIT_LLAMA_SERVER");
    if (!fromEnvironment.isEmpty()) {
        return fromEnvironment;
    }
    return QStandardPaths::findExecutable(QStringLiteral("llama-server"));
}

QString LaunchPanel::serverBinary() const {
    return m_binaryEdit->text().trimmed();
}

void LaunchPanel::setServerBinary(const QString& program) {
    m_binaryEdit->setText(program);
    onBinaryEdited();
}

QString LaunchPanel::host() const {
    return m_hostEdit->text().trimmed();
}

void LaunchPanel::setHost(const QString& host) {
    m_hostEdit->setText(host);
    refresh();
}

std::uint16_t LaunchPanel::port() const {
    return static_cast<std::uint16_t>(m_portSpin->value());
}

void LaunchPanel::setPort(std::uint16_t port) {
    m_portSpin->setValue(port);
}

LaunchRequest LaunchPanel::launchRequest() const {
    LaunchRequest request;
    request.program = serverBinary();
    request.modelPath = m_session->model().path;
    request.settings = m_session->settings();
    request.argvOptions = launchArgvOptions(host().toStdString(),
                                            port() == 0 ? std::nullopt : std::optional<std::uint16_t>(port()),
                                            m_session->extraArgs());
    return request;
}

// A built-in card has no file: its command line and exports name a placeholder for the GGUF
// the user will download, instead of an empty -m ''.
constexpr const char* kCardModelPlaceholder = "MODEL.gguf";

Result<BuildArgv> LaunchPanel::argvNow() const {
    LaunchRequest request = launchRequest();
    if (request.modelPath.empty()) {
        request.modelPath = kCardModelPlaceholder;
    }
    const bool probed = m_capabilities && m_probedProgram == request.program;
    return launchArgv(request, probed ? m_capabilities : std::nullopt);
}

QString LaunchPanel::commandLine() const {
    return commandLineOf(argvNow());
}

QString LaunchPanel::commandLineOf(const Result<BuildArgv>& argv) const {
    LaunchRequest request = launchRequest();
    if (request.modelPath.empty()) {
        request.modelPath = kCardModelPlaceholder;
    }
    // A build that cannot express a setting: the 0.7.0 spelling, with the blocker shown.
    const std::vector<std::string> words =
        argv ? argv->args : unprobedServerArgv(request.modelPath, request.settings, request.argvOptions);
    const std::string program =
        request.program.isEmpty() ? std::string("llama-server") : request.program.toStdString();
    return shellCommandLine(program, words);
}

ExportSpec LaunchPanel::exportSpec() const {
    ExportSpec spec;
    if (!serverBinary().isEmpty()) {
        spec.serverBinary = serverBinary().toStdString();
    }
    spec.modelPath = m_session->model().path.empty() ? kCardModelPlaceholder : m_session->model().path;
    spec.settings = m_session->settings();
    spec.host = host().toStdString();
    if (port() != 0) {
        spec.port = port();
    }
    spec.extraArgs = m_session->extraArgs();
    return spec;
}

Result<bool> LaunchPanel::exportTo(ExportFormat format, const QString& path) const {
    return writeExportFile(format, exportSpec(), path);
}

QString LaunchPanel::launchBlocker() const {
    return launchBlockerOf(argvNow());
}

QString LaunchPanel::launchBlockerOf(const Result<BuildArgv>& argv) const {
    if (m_session->model().path.empty()) {
        return tr("%1 is a built-in card with no model file: choose a GGUF file in the library to launch it.")
            .arg(QString::fromStdString(m_session->model().displayName));
    }
    if (!m_session->estimate()) {
        return tr("llama-server would refuse these settings: %1")
            .arg(QString::fromStdString(m_session->estimate().error().message));
    }
    if (serverBinary().isEmpty()) {
        return tr("No llama-server binary: choose one with Browse.");
    }
    // Spelled for the probed build (argvNow): a setting it cannot express blocks the launch.
    if (!argv) {
        return QString::fromStdString(argv.error().message);
    }
    return {};
}

FailureDialog* LaunchPanel::failureDialog() const {
    return m_failureDialog;
}

void LaunchPanel::launch() {
    // Spelled once per click: for the blocker, the launcher (which reuses it when its probe
    // finds the same build) and the refreshed command line.
    const Result<BuildArgv> argv = argvNow();
    if (!launchBlockerOf(argv).isEmpty() || isRunning(m_process->state()) || m_launcher.busy()) {
        return;
    }
    m_refusal.clear();
    m_notesLabel->clear();
    m_notesLabel->setVisible(false);
    m_launchedSettings = m_session->settings();
    const bool probed = m_capabilities && m_probedProgram == serverBinary();
    m_launcher.launch(launchRequest(), probed ? std::optional<BuildArgv>(*argv) : std::nullopt,
                      probed ? m_capabilities : std::nullopt);
    refreshWith(argv);
}

void LaunchPanel::stop() {
    if (m_launcher.busy()) {
        m_launcher.cancel(); // nothing started yet
        refresh();
        return;
    }
    m_process->stop();
}

void LaunchPanel::onBinaryEdited() {
    const QString program = serverBinary();
    if (program == m_probedProgram && (m_capabilities || program.isEmpty())) {
        refresh();
        return;
    }
    m_probedProgram = program;
    m_capabilities.reset();
    if (program.isEmpty()) {
        m_versionLabel->setText(tr("llama-server was not found on PATH: choose it with Browse."));
    } else {
        m_versionLabel->setText(tr("Checking %1…").arg(QFileInfo(program).fileName()));
        m_launcher.probe(program);
    }
    refresh();
}

void LaunchPanel::onProbed(const BinaryProbeOutcome& outcome) {
    if (outcome.program != serverBinary()) {
        return; // an older binary's answer
    }
    m_probedProgram = outcome.program;
    m_capabilities = outcome.capabilities;
    m_versionLabel->setText(describeVersion(outcome));
    refresh();
}

void LaunchPanel::onProcessState(ServerProcess::State) {
    refresh();
}

void LaunchPanel::onProcessFailed(const LaunchFailure& failure) {
    if (m_failureDialog) {
        m_failureDialog->close();
    }
    auto* dialog = new FailureDialog(failure, *m_session, m_launchedSettings, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &FailureDialog::fixChosen, m_session, &SizingSession::setSettings);
    m_failureDialog = dialog;
    // Non-modal: the log, the settings and the live view stay usable while it is open.
    dialog->setModal(false);
    dialog->show();
    refresh();
}

void LaunchPanel::onRefused(const Error& error) {
    m_refusal = QString::fromStdString(error.message);
    refresh();
}

void LaunchPanel::browse() {
    const QString start = serverBinary().isEmpty() ? QString() : QFileInfo(serverBinary()).absolutePath();
    const QString program = QFileDialog::getOpenFileName(this, tr("Choose llama-server"), start);
    if (!program.isEmpty()) {
        setServerBinary(program);
    }
}

void LaunchPanel::chooseExport(ExportFormat format) {
    const QString path = QFileDialog::getSaveFileName(
        this, exportFormatLabel(format), exportDefaultFileName(format), exportFileFilter(format));
    if (path.isEmpty()) {
        return;
    }
    if (Result<bool> written = exportTo(format, path); !written) {
        QMessageBox::warning(this, tr("Export failed"), QString::fromStdString(written.error().message));
    }
}

void LaunchPanel::refresh() {
    // Spelled once for the command line and the blocker.
    refreshWith(argvNow());
}

void LaunchPanel::refreshWith(const Result<BuildArgv>& argv) {
    m_commandLine->setText(commandLineOf(argv));
    m_commandLine->setCursorPosition(0);
    m_hostWarning->setVisible(!host().isEmpty() && !isLoopbackHost(host()));

    const ServerProcess::State state = m_process->state();
    const bool running = isRunning(state) || m_launcher.busy();
    const QString blocker = launchBlockerOf(argv);
    m_launchButton->setEnabled(!running && blocker.isEmpty());
    m_launchButton->setToolTip(blocker.isEmpty() ? tr("Start llama-server with the command line above")
                                                 : blocker);
    m_stopButton->setEnabled(running && state != ServerProcess::State::Stopping);
    for (QWidget* input : {static_cast<QWidget*>(m_binaryEdit), static_cast<QWidget*>(m_browseButton),
                           static_cast<QWidget*>(m_hostEdit), static_cast<QWidget*>(m_portSpin)}) {
        input->setEnabled(!running);
    }

    QString text;
    QString tip;
    if (m_launcher.busy()) {
        text = tr("Checking the command line…");
    } else if (!m_refusal.isEmpty() && !isRunning(state)) {
        text = tr("Refused: %1").arg(m_refusal); // nothing was started
    } else {
        text = stateText(state, blocker, &tip);
    }
    m_stateLabel->setText(text);
    m_stateLabel->setToolTip(tip.isEmpty() ? tr("The llama-server process's state") : tip);
}

QString LaunchPanel::stateText(ServerProcess::State state, const QString& blocker, QString* tip) const {
    switch (state) {
    case ServerProcess::State::Stopped:
        return blocker.isEmpty() ? tr("Stopped") : tr("Stopped: %1").arg(blocker);
    case ServerProcess::State::Starting:
        return tr("Starting");
    case ServerProcess::State::Loading:
        return tr("Loading the model");
    case ServerProcess::State::Ready:
        return tr("Ready at %1").arg(m_process->baseUrl().toString());
    case ServerProcess::State::Stopping:
        return tr("Stopping");
    case ServerProcess::State::Failed:
        break;
    }
    const std::string_view name = launchFailureName(m_process->failure().reason);
    *tip = QString::fromStdString(m_process->failure().message);
    return tr("Failed: %1").arg(QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size())));
}

QString LaunchPanel::serverVersionText() const {
    return m_versionLabel->text();
}

} // namespace llamafit
