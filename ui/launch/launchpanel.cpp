// LaunchPanel: binary, version, address, command line, exports, Launch / Stop, state.

#include "ui/launch/launchpanel.h"

#include "core/server/enginelocations.h"
#include "core/server/exposure.h"
#include "core/system/apikeyfile.h"
#include "core/system/enginefetch.h"
#include "core/system/processenvironment.h"
#include "ui/launch/failuredialog.h"
#include "ui/sizingsession.h"

#include <QCheckBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSpinBox>
#include <QStandardPaths>

namespace llamafit {

namespace {

bool isRunning(ServerProcess::State state) {
    return state != ServerProcess::State::Stopped && state != ServerProcess::State::Failed;
}

} // namespace

LaunchPanel::LaunchPanel(SizingSession* session, ServerProcess* process, QWidget* parent)
    : QWidget(parent), m_session(session), m_process(process), m_launcher(process), m_crossCheck(session) {
    setObjectName(QStringLiteral("launchPanel"));
    buildWidgets();
    connect(&m_crossCheck, &ProjectionCrossCheck::changed, this, &LaunchPanel::showProjectionCheck);
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
    // A build the user fetched into LlamaFit's engines folder, then the one on PATH.
    const std::vector<std::string> own = ownEngineFolders(defaultEnginesRoot(), currentOsKind());
    if (!own.empty()) {
        return QString::fromStdString(own.front() + "/" + llamaServerProgramName(currentOsKind()));
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

bool LaunchPanel::networkAccessChosen() const {
    return m_exposeCheck->isChecked();
}

void LaunchPanel::setNetworkAccessChosen(bool chosen) {
    m_exposeCheck->setChecked(chosen); // toggled -> refresh
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
    // With the key file named (shown in the command line); a refused host is refused by argvNow.
    if (Result<std::vector<std::string>> guarded =
            exposureGuarded(request.argvOptions.host, request.argvOptions.extraArgs)) {
        request.argvOptions.extraArgs = std::move(*guarded);
    }
    return request;
}

Result<std::vector<std::string>> LaunchPanel::exposureGuarded(const std::string& host,
                                                              std::vector<std::string> extraArgs) const {
    const NetworkExposure exposure{networkAccessChosen(), defaultApiKeyFilePath().toStdString()};
    return guardExposure(host, std::move(extraArgs), exposure);
}

// A built-in card has no file: its command line and exports name a placeholder for the GGUF
// the user will download, instead of an empty -m ''.
constexpr const char* kCardModelPlaceholder = "MODEL.gguf";

Result<BuildArgv> LaunchPanel::argvNow() const {
    LaunchRequest request = launchRequest();
    if (Result<std::vector<std::string>> guarded =
            exposureGuarded(request.argvOptions.host, request.argvOptions.extraArgs);
        !guarded) {
        return guarded.error();
    }
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
    ExportSpec spec = exportSpec();
    // The script names the key file, never the key; the file is made now if it is LlamaFit's.
    Result<std::vector<std::string>> extraArgs =
        prepareExposure(spec.host, spec.extraArgs, networkAccessChosen());
    if (!extraArgs) {
        return extraArgs.error();
    }
    spec.extraArgs = std::move(*extraArgs);
    return writeExportFile(format, spec, path);
}

QString LaunchPanel::launchBlocker() const {
    return launchBlockerOf(argvNow());
}

QString LaunchPanel::launchBlockerOf(const Result<BuildArgv>& argv) const {
    if (m_session->model().path.empty()) {
        if (!m_session->model().hubRepo.empty()) {
            return tr("%1 is a built-in card with no model file: download it with File > Get models from "
                      "Hugging "
                      "Face (%2), or choose a GGUF file in the library.")
                .arg(QString::fromStdString(m_session->model().displayName),
                     QString::fromStdString(m_session->model().hubRepo));
        }
        return tr("%1 is a built-in card with no model file: choose a GGUF file in the library to launch it.")
            .arg(QString::fromStdString(m_session->model().displayName));
    }
    if (!m_session->estimate()) {
        return tr("llama-server would refuse these settings: %1")
            .arg(QString::fromStdString(m_session->estimate().error().message));
    }
    if (serverBinary().isEmpty()) {
        return tr("No llama-server binary: choose one with Browse, or get llama.cpp's build with Server > "
                  "llama-server builds.");
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
    LaunchRequest request = launchRequest();
    Result<std::vector<std::string>> extraArgs =
        prepareExposure(request.argvOptions.host, request.argvOptions.extraArgs, networkAccessChosen());
    if (!extraArgs) { // the key file could not be written: nothing is started
        m_refusal = QString::fromStdString(extraArgs.error().message);
        refreshWith(argv);
        return;
    }
    request.argvOptions.extraArgs = std::move(*extraArgs);
    const bool probed = m_capabilities && m_probedProgram == serverBinary();
    m_launcher.launch(request, probed ? std::optional<BuildArgv>(*argv) : std::nullopt,
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
    m_session->setServerBuild(std::nullopt); // until the probe says which build it is
    m_crossCheck.setTool(ProjectionCrossCheck::toolBesideServer(program));
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
    // The estimate sizes for the build this launch will run (issue 30: the build is an input).
    m_session->setServerBuild(m_capabilities ? m_capabilities->buildNumber : std::nullopt);
    m_versionLabel->setText(describeVersion(outcome));
    refresh();
}

void LaunchPanel::showProjectionCheck() {
    using State = ProjectionCrossCheck::State;
    if (m_crossCheck.state() != State::Done) {
        const QString prefix =
            m_crossCheck.state() == State::Failed ? tr("llama.cpp's projection failed: ") : QString();
        m_projectionLabel->setText(prefix + m_crossCheck.message());
        return;
    }
    QStringList lines;
    for (const ProjectionCheckRow& row : m_crossCheck.rows()) {
        QString line = tr("%1: llama.cpp %2 projects %3 MiB, LlamaFit %4 MiB")
                           .arg(QString::fromStdString(row.device), m_crossCheck.build())
                           .arg(row.llamaCppMiB)
                           .arg(row.llamaFitMiB);
        if (row.differs) {
            line += tr(" -- differs by %1 (over 1 %: this build's rules may be newer than LlamaFit's)")
                        .arg(QString::asprintf("%+.1f %%", row.differencePercent));
        }
        lines << line;
    }
    m_projectionLabel->setText(lines.join(QLatin1Char('\n')));
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
    const std::string listening = listeningHost(host().toStdString(), m_session->extraArgs());
    const bool network = !isLoopbackHost(listening);
    if (network && !networkAccessChosen()) {
        m_hostWarning->setText(
            tr("%1 would make llama-server reachable from the network, without a "
               "password: tick \"Allow access from the network\" to launch it with an API key.")
                .arg(QString::fromStdString(listening)));
    } else if (networkAccessChosen()) {
        m_hostWarning->setText(tr("Clients need the API key in %1 (\"Authorization: Bearer KEY\").")
                                   .arg(QDir::toNativeSeparators(defaultApiKeyFilePath())));
    }
    m_hostWarning->setVisible(network || networkAccessChosen());

    const ServerProcess::State state = m_process->state();
    const bool running = isRunning(state) || m_launcher.busy();
    const QString blocker = launchBlockerOf(argv);
    m_launchButton->setEnabled(!running && blocker.isEmpty());
    m_launchButton->setToolTip(blocker.isEmpty() ? tr("Start llama-server with the command line above")
                                                 : blocker);
    m_stopButton->setEnabled(running && state != ServerProcess::State::Stopping);
    for (QWidget* input : {static_cast<QWidget*>(m_binaryEdit), static_cast<QWidget*>(m_browseButton),
                           static_cast<QWidget*>(m_hostEdit), static_cast<QWidget*>(m_portSpin),
                           static_cast<QWidget*>(m_exposeCheck)}) {
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
