// The main window: panels composed and wired; see mainwindow.h.
#include "ui/mainwindow.h"

#include "core/model/modelsource.h"
#include "core/system/devicememoryreader.h"
#include "core/system/processenvironment.h"
#include "core/system/serverlauncher.h"
#include "core/system/serverprocess.h"
#include "ui/aboutdialog.h"
#include "ui/bench/benchmarkdialog.h"
#include "ui/charts/memorychart.h"
#include "ui/charts/sweepchart.h"
#include "ui/cluster/clusterpanel.h"
#include "ui/devicedetection.h"
#include "ui/dockscrollarea.h"
#include "ui/hub/enginesdialog.h"
#include "ui/hub/getmodelsdialog.h"
#include "ui/launch/launchpanel.h"
#include "ui/library/modelpickerpanel.h"
#include "ui/live/liveview.h"
#include "ui/machinepanel.h"
#include "ui/modelprofiles.h"
#include "ui/modelset/modelsetdialog.h"
#include "ui/settings/advicepanel.h"
#include "ui/settings/settingspanel.h"
#include "ui/sizingsession.h"
#include "ui/theme.h"
#include "ui/translation.h"

#include <QActionGroup>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QLineEdit>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QSplitter>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>

#include <algorithm>

namespace llamafit {

namespace {

// The window height from which the Plan tab shows the memory chart and the context sweep
// together at first (a 1920 x 1080 screen's window); below it the sweep starts folded.
constexpr int kBothChartsHeight = 900;

QDockWidget* makeDock(const QString& title, const QString& objectName, QWidget* content,
                      QMainWindow* window) {
    auto* dock = new QDockWidget(title, window);
    dock->setObjectName(objectName); // saveState/restoreState identify docks by objectName
    dock->setWidget(new DockScrollArea(content, dock));
    return dock;
}

// The model folders of this OS, from the environment and the home folder.
LibraryRoots standardLibraryRoots() {
    return defaultLibraryRoots(processEnvironment(), homeDirectory(), currentOsKind());
}

} // namespace

MainWindow::MainWindow(SizingSession* session, QSettings* settings, AppSettings appSettings,
                       MainWindowOptions options, QWidget* parent)
    : QMainWindow(parent), m_session(session), m_settings(settings), m_appSettings(std::move(appSettings)),
      m_options(std::move(options)),
      m_profiles(std::make_unique<ModelProfiles>(settings, m_options.profileFolder)),
      m_process(new ServerProcess(this)) {
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("LlamaFit"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks);
    // The right docks (Settings over Advice) run the window's full height, the Launch dock sits
    // under the models and the charts: on a 768-pixel-high screen the two panels need the
    // height more than the launch row needs the width.
    setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    // Before the panels exist: they show the session's values when they are built.
    session->setMarginBytes(m_appSettings.marginMiB * 1024 * 1024);
    session->setBandwidthOverride(m_appSettings.bandwidthBytesPerSecond);
    session->setRpcHosts(m_appSettings.rpcHosts);

    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("centralTabs"));
    auto* plan = new QSplitter(Qt::Vertical, m_tabs);
    plan->setObjectName(QStringLiteral("planSplitter"));
    m_memoryChart = new MemoryChart(session, plan);
    m_sweepChart = new SweepChart(session, plan);
    plan->addWidget(m_memoryChart);
    plan->addWidget(m_sweepChart);
    // The memory chart first: it is what the product is for (at least a third of the window).
    plan->setStretchFactor(0, 2);
    plan->setStretchFactor(1, 1);
    plan->setCollapsible(1, true);
    m_liveView = new LiveView(session, m_process, m_tabs);
    // One store for what the benchmark dialog and the live view record and what the figures
    // learn from.
    if (!m_options.benchmarkFolder.isEmpty()) {
        m_memoryChart->setBenchmarkFolder(m_options.benchmarkFolder);
        m_liveView->setBenchmarkFolder(m_options.benchmarkFolder);
    }
    m_tabs->addTab(plan, tr("Plan"));
    m_tabs->addTab(m_liveView, tr("Live"));
    setCentralWidget(m_tabs);

    buildDocks();
    connect(m_liveView, &LiveView::runLearned, m_advicePanel, &AdvicePanel::refreshSpeed);
    buildMenus();
    wireServer();
    statusBar()->setObjectName(QStringLiteral("statusBar"));

    if (!m_appSettings.windowGeometry.isEmpty()) {
        restoreGeometry(m_appSettings.windowGeometry);
    } else if (const QScreen* display = QGuiApplication::primaryScreen(); display != nullptr) {
        // First start: most of the screen (three docks and two charts want room), at least
        // the 1400 x 900 the layout is designed for when the screen allows it.
        const QSize available = display->availableGeometry().size();
        resize(std::min(available.width(), std::max(1400, available.width() * 9 / 10)),
               std::min(available.height(), std::max(900, available.height() * 9 / 10)));
    } else {
        resize(1400, 900);
    }
    if (!m_appSettings.windowState.isEmpty()) {
        restoreState(m_appSettings.windowState);
    } else {
        m_firstLayout = true; // sized in the first showEvent, when the docks have their geometry
        plan->setSizes({500, 400});
    }

    if (m_options.detectDevices) {
        m_detection = new DeviceDetection({}, this);
        connect(m_detection, &DeviceDetection::finished, this, [this] {
            const bool select = m_appSettings.machineId == QLatin1String("detected") ||
                                (m_appSettings.machineId.isEmpty() && m_detection->foundGpu());
            m_machinePanel->setDetectedMachine(m_detection->machine(), select);
            if (select && m_appSettings.carveOutBytes) {
                m_machinePanel->selectCarveOut(*m_appSettings.carveOutBytes);
            }
            m_liveView->setDeviceReaderFactory(
                [this] { return makeDeviceMemoryReaders(m_detection->result()); });
        });
        m_detection->start();
    }
    if (!m_appSettings.machineId.isEmpty() && m_appSettings.machineId != QLatin1String("detected")) {
        m_machinePanel->selectMachine(m_appSettings.machineId);
        if (m_appSettings.carveOutBytes) {
            m_machinePanel->selectCarveOut(*m_appSettings.carveOutBytes);
        }
    }
    if (m_appSettings.lastModel.isEmpty() || !chooseModel(m_appSettings.lastModel)) {
        restoreProfile();
    }
    m_picker->selectModel(m_appSettings.lastModel.isEmpty() ? QString::fromStdString(session->model().cardId)
                                                            : m_appSettings.lastModel);
    m_picker->startScan();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildDocks() {
    m_picker =
        new ModelPickerPanel(m_options.libraryRoots ? *m_options.libraryRoots : standardLibraryRoots(), this);
    m_picker->setUserFolders(m_appSettings.libraryFolders);
    connect(m_picker, &ModelPickerPanel::modelChosen, this, &MainWindow::chooseModel);
    connect(m_picker, &ModelPickerPanel::modelChosenWithMtp, this, [this](const QString& pathOrCardId) {
        if (!chooseModel(pathOrCardId)) {
            return;
        }
        ServerSettings settings = m_session->settings();
        if (!settings.speculative.uses(SpeculativeType::DraftMtp)) {
            settings.speculative.types.push_back(SpeculativeType::DraftMtp);
            m_session->setSettings(settings);
        }
    });
    connect(m_picker, &ModelPickerPanel::modelChosenWithProjector, this,
            [this](const QString& pathOrCardId, const QString& projectorPath) {
                if (!chooseModel(pathOrCardId)) {
                    return;
                }
                ServerSettings settings = m_session->settings();
                settings.projector.path = projectorPath.toStdString();
                m_session->setSettings(settings);
            });
    connect(m_picker, &ModelPickerPanel::userFoldersChanged, this,
            [this](const QStringList& folders) { m_appSettings.libraryFolders = folders; });
    m_machinePanel = new MachinePanel(m_session, this);
    m_settingsPanel = new SettingsPanel(m_session, this);
    m_advicePanel = new AdvicePanel(m_session, this);
    if (!m_options.benchmarkFolder.isEmpty()) {
        m_advicePanel->setBenchmarkFolder(m_options.benchmarkFolder);
    }
    m_launchPanel = new LaunchPanel(m_session, m_process, this);
    m_clusterPanel = new ClusterPanel(m_session, this);
    // "Ask hosts" asks the llama-server that will serve: the launch panel's.
    m_clusterPanel->setServerProgramSource([this] { return m_launchPanel->serverBinary(); });
    m_clusterPanel->watchServer(m_process);
    if (!m_appSettings.serverBinary.isEmpty()) {
        m_launchPanel->setServerBinary(m_appSettings.serverBinary);
    }
    m_launchPanel->setHost(m_appSettings.host);
    m_launchPanel->setPort(static_cast<std::uint16_t>(m_appSettings.port));
    // The binary's --version/--help survive restarts: the version shows without re-running it.
    const QString dataDir = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    if (!dataDir.isEmpty() && QDir().mkpath(dataDir)) {
        m_launchPanel->launcher()->binaryProbe().setCacheFile(dataDir +
                                                              QStringLiteral("/llama-server-builds.json"));
    }

    auto* models = new QDockWidget(tr("Models"), this);
    models->setObjectName(QStringLiteral("modelsDock"));
    models->setWidget(m_picker);
    addDockWidget(Qt::LeftDockWidgetArea, models);
    addDockWidget(Qt::LeftDockWidgetArea,
                  makeDock(tr("Machine"), QStringLiteral("machineDock"), m_machinePanel, this));
    // The cluster is the machine grown by its RPC hosts: a tab beside the Machine dock.
    QDockWidget* cluster = makeDock(tr("Cluster"), QStringLiteral("clusterDock"), m_clusterPanel, this);
    addDockWidget(Qt::LeftDockWidgetArea, cluster);
    tabifyDockWidget(findChild<QDockWidget*>(QStringLiteral("machineDock")), cluster);
    findChild<QDockWidget*>(QStringLiteral("machineDock"))->raise();
    addDockWidget(Qt::RightDockWidgetArea,
                  makeDock(tr("Settings"), QStringLiteral("settingsDock"), m_settingsPanel, this));
    addDockWidget(Qt::RightDockWidgetArea,
                  makeDock(tr("Advice"), QStringLiteral("adviceDock"), m_advicePanel, this));
    addDockWidget(Qt::BottomDockWidgetArea,
                  makeDock(tr("Launch"), QStringLiteral("launchDock"), m_launchPanel, this));
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open GGUF model..."), this, &MainWindow::openModelFile);
    open->setShortcut(QKeySequence::Open);
    // Several models on this machine at once (router / llama-swap): planned for the session's
    // machine and margin as they are when the view opens.
    QAction* modelSet = file->addAction(tr("Model &set..."), this, [this] {
        auto* dialog = new ModelSetDialog(m_session->machine(), m_session->marginBytes(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->show();
    });
    modelSet->setObjectName(QStringLiteral("modelSetAction"));
    // Hugging Face repos sized for the machine and settings planned now; a download is chosen
    // (with its projector) and the library lists it.
    QAction* getModels = file->addAction(tr("&Get models from Hugging Face..."), this, [this] {
        auto* dialog = new GetModelsDialog(hubClientOptionsFromEnvironment(), m_session->settings(),
                                           m_session->machine(), m_session->marginBytes(), this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        // A built-in card without its file: the repo and quant it was made from, ready to download.
        if (const LoadedModel& model = m_session->model(); model.path.empty() && !model.hubRepo.empty()) {
            dialog->openRepo(QString::fromStdString(model.hubRepo), QString::fromStdString(model.hubQuant));
        }
        connect(dialog, &GetModelsDialog::modelDownloaded, this,
                [this](const QString& modelPath, const QString& projectorPath) {
                    m_picker->startScan();
                    m_picker->selectModel(modelPath);
                    if (!chooseModel(modelPath) || projectorPath.isEmpty()) {
                        return;
                    }
                    ServerSettings settings = m_session->settings();
                    settings.projector.path = projectorPath.toStdString();
                    m_session->setSettings(settings);
                });
        dialog->show();
    });
    getModels->setObjectName(QStringLiteral("getModelsAction"));
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    for (QDockWidget* dock : findChildren<QDockWidget*>()) {
        view->addAction(dock->toggleViewAction());
    }
    view->addSeparator();
    QMenu* theme = view->addMenu(tr("&Theme"));
    auto* themes = new QActionGroup(this);
    const std::pair<ThemeChoice, QString> themeItems[] = {{ThemeChoice::System, tr("System")},
                                                          {ThemeChoice::Light, tr("Light")},
                                                          {ThemeChoice::Dark, tr("Dark")}};
    for (const auto& [choice, label] : themeItems) {
        QAction* action = theme->addAction(label);
        action->setCheckable(true);
        action->setChecked(choice == m_appSettings.theme);
        action->setObjectName(QStringLiteral("themeAction_") + themeChoiceName(choice));
        themes->addAction(action);
        connect(action, &QAction::triggered, this, [this, choice = choice] {
            m_appSettings.theme = choice;
            applyTheme(choice);
        });
    }
    QMenu* language = view->addMenu(tr("&Language"));
    auto* languages = new QActionGroup(this);
    for (const QString& code : availableLanguages()) {
        QAction* action = language->addAction(code == QLatin1String("ja") ? QStringLiteral("日本語")
                                                                          : QStringLiteral("English"));
        action->setCheckable(true);
        action->setChecked(code == m_appSettings.language);
        languages->addAction(action);
        connect(action, &QAction::triggered, this, [this, code] {
            m_appSettings.language = code;
            showStatus(tr("The language changes the next time LlamaFit starts."));
        });
    }

    // Keyboard: every main action has a shortcut, so the app is usable without the mouse.
    QMenu* server = menuBar()->addMenu(tr("&Server"));
    QAction* launch = server->addAction(tr("&Launch llama-server"), m_launchPanel, &LaunchPanel::launch);
    launch->setObjectName(QStringLiteral("launchAction"));
    launch->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    QAction* stop = server->addAction(tr("&Stop llama-server"), m_launchPanel, &LaunchPanel::stop);
    stop->setObjectName(QStringLiteral("stopAction"));
    stop->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    // The llama-server builds here, and llama.cpp's official one for this machine when none fits.
    QAction* engines = server->addAction(tr("llama-server &builds..."), this, [this] {
        const Machine& machine = m_session->machine();
        auto* dialog = new EnginesDialog(
            m_launchPanel->serverBinary(),
            preferredEngineBackend(machine.gpus.empty() ? Backend::Cpu : machine.gpus.front().backend,
                                   !machine.gpus.empty(), currentOsKind()),
            this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        connect(dialog, &EnginesDialog::engineChosen, m_launchPanel, &LaunchPanel::setServerBinary);
        dialog->show();
    });
    engines->setObjectName(QStringLiteral("enginesAction"));
    server->addSeparator();
    QAction* benchmark =
        server->addAction(tr("&Benchmark with llama-bench..."), this, &MainWindow::showBenchmark);
    benchmark->setObjectName(QStringLiteral("benchmarkAction"));
    benchmark->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    QAction* findModel = view->addAction(tr("&Find model"), this, [this] {
        if (auto* filter = findChild<QLineEdit*>(QStringLiteral("modelFilterEdit"))) {
            filter->parentWidget()->window()->activateWindow();
            filter->setFocus(Qt::ShortcutFocusReason);
            filter->selectAll();
        }
    });
    findModel->setObjectName(QStringLiteral("findModelAction"));
    findModel->setShortcut(QKeySequence::Find);
    QAction* planTab = view->addAction(tr("&Plan"), this, [this] { m_tabs->setCurrentIndex(0); });
    planTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_1));
    QAction* liveTab = view->addAction(tr("Li&ve"), this, [this] { m_tabs->setCurrentWidget(m_liveView); });
    liveTab->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_2));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About LlamaFit"), this, &MainWindow::showAbout);
}

void MainWindow::wireServer() {
    connect(m_process, &ServerProcess::stateChanged, this, [this](ServerProcess::State state) {
        if (state == ServerProcess::State::Ready) {
            m_tabs->setCurrentWidget(m_liveView);
            saveProfile(); // the settings that really ran
        }
    });
}

bool MainWindow::chooseModel(const QString& pathOrCardId) {
    const std::string wanted = pathOrCardId.toStdString();
    if (wanted == m_session->model().path || wanted == m_session->model().cardId) {
        return true;
    }
    Result<LoadedModel> loaded = loadModel(wanted);
    if (!loaded) {
        showStatus(
            tr("Cannot open %1: %2").arg(pathOrCardId, QString::fromStdString(loaded.error().message)));
        return false;
    }
    saveProfile();
    m_session->setModel(std::move(*loaded));
    restoreProfile();
    m_appSettings.lastModel = pathOrCardId;
    setWindowTitle(tr("%1 — LlamaFit").arg(QString::fromStdString(m_session->model().displayName)));
    return true;
}

// The model's last settings, or the start settings when it has none.
void MainWindow::restoreProfile() {
    if (std::optional<ModelProfile> profile = m_profiles->load(m_session->model())) {
        m_session->setSettings(profile->settings);
        m_session->setExtraArgs(profile->extraArgs);
        // The build this model last ran with, while it is still there.
        if (!profile->serverBinary.isEmpty() && QFileInfo(profile->serverBinary).isExecutable()) {
            m_launchPanel->setServerBinary(profile->serverBinary);
        }
    } else {
        m_session->setSettings(SizingSession::startSettings(m_session->model().info));
    }
    if (!m_profiles->message().isEmpty()) {
        showStatus(m_profiles->message());
    }
}

void MainWindow::saveProfile() {
    m_profiles->save(m_session->model(), ModelProfile{m_session->settings(), m_session->extraArgs(),
                                                      m_launchPanel->serverBinary()});
}

AppSettings MainWindow::currentAppSettings() const {
    AppSettings values = m_appSettings;
    values.machineId = m_machinePanel->selectedMachineId();
    values.carveOutBytes = m_machinePanel->selectedCarveOutBytes();
    values.marginMiB = m_session->marginBytes() / (1024 * 1024);
    values.bandwidthBytesPerSecond = m_session->bandwidthOverride();
    values.rpcHosts = m_session->rpcHosts();
    values.libraryFolders = m_picker->userFolders();
    values.serverBinary = m_launchPanel->serverBinary();
    values.host = m_launchPanel->host();
    values.port = m_launchPanel->port();
    values.windowGeometry = saveGeometry();
    values.windowState = saveState();
    return values;
}

void MainWindow::showStatus(const QString& message) {
    statusBar()->showMessage(message, 15000);
}

void MainWindow::openModelFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Open GGUF model"), QString(),
                                                      tr("GGUF models (*.gguf);;All files (*)"));
    if (!path.isEmpty()) {
        chooseModel(path);
    }
}

// One dialog for the window's life: it keeps its fields, the run shown and a benchmark that
// runs while the user goes on planning.
void MainWindow::showBenchmark() {
    if (m_benchmarkDialog == nullptr) {
        m_benchmarkDialog =
            new BenchmarkDialog(m_session, m_launchPanel->serverBinary(), m_options.benchmarkFolder, this);
        connect(m_benchmarkDialog, &BenchmarkDialog::recordShown, m_advicePanel, &AdvicePanel::refreshSpeed);
    }
    m_benchmarkDialog->show();
    m_benchmarkDialog->raise();
    m_benchmarkDialog->activateWindow();
}

void MainWindow::showAbout() {
    auto* about = new AboutDialog(m_launchPanel->serverVersionText(), this);
    about->setAttribute(Qt::WA_DeleteOnClose);
    about->open();
}

void MainWindow::showEvent(QShowEvent* event) {
    QMainWindow::showEvent(event);
    if (m_firstLayout) {
        m_firstLayout = false;
        // First start: the Launch dock as high as its rows, with no empty band under it. The side
        // docks need nothing here: DockScrollArea holds each at least as wide as its panel.
        resizeDocks({findChild<QDockWidget*>(QStringLiteral("launchDock"))},
                    {m_launchPanel->sizeHint().height()}, Qt::Vertical);
    }
    if (!m_planSized) {
        m_planSized = true;
        // On a short screen the memory chart -- the picture the product is for -- takes the whole
        // Plan tab at each start; the context sweep waits folded under it (drag the handle up to
        // open it). Two charts in about 500 px left the bars 60 px tall under their legend and notes.
        if (height() < kBothChartsHeight) {
            findChild<QSplitter*>(QStringLiteral("planSplitter"))->setSizes({1, 0}); // proportions
        }
    }
}

void MainWindow::closeEvent(QCloseEvent* event) {
    saveProfile();
    saveAppSettings(currentAppSettings(), *m_settings);
    // The server stops with the window: ServerProcess's destructor asks it politely, then kills.
    if (m_process->state() != ServerProcess::State::Stopped &&
        m_process->state() != ServerProcess::State::Failed) {
        m_process->stop();
    }
    event->accept();
}

} // namespace llamafit
