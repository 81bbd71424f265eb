// The llama-server builds on this machine and the official one to fetch; see enginesdialog.h.

#include "ui/hub/enginesdialog.h"
#include "ui/hub/readonlycell.h"

#include "core/system/enginefetch.h"
#include "core/system/processenvironment.h"
#include "ui/hub/hubtaskrunner.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace llamafit {

namespace {

QString releasesUrl() {
    const QString custom = qEnvironmentVariable("LLAMAFIT_LLAMA_RELEASES_URL");
    return custom.isEmpty() ? QString::fromLatin1(kLlamaReleasesLatestUrl.data(),
                                                  static_cast<qsizetype>(kLlamaReleasesLatestUrl.size()))
                            : custom;
}

HubClientOptions releaseClientOptions() {
    HubClientOptions options;
    options.endpoint = releasesUrl().toStdString(); // its origin only; no token goes anywhere
    return options;
}

} // namespace

EngineBackend preferredEngineBackend(Backend gpuBackend, bool hasGpu, OsKind os) {
    if (os == OsKind::MacOs) {
        return EngineBackend::Metal;
    }
    if (!hasGpu) {
        return EngineBackend::Cpu;
    }
    return gpuBackend == Backend::Cuda && os == OsKind::Windows ? EngineBackend::Cuda : EngineBackend::Vulkan;
}

EnginesDialog::EnginesDialog(const QString& current, EngineBackend preferred, QWidget* parent)
    : QDialog(parent), m_current(current), m_runner(std::make_unique<HubTaskRunner>(releaseClientOptions())) {
    setObjectName(QStringLiteral("enginesDialog"));
    setWindowTitle(tr("llama-server builds"));

    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName(QStringLiteral("enginesTable"));
    m_table->setHorizontalHeaderLabels({tr("llama-server"), tr("From"), tr("Build"), tr("Devices")});
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setToolTip(tr("Each build was run with --version and --list-devices"));

    m_useButton = new QPushButton(tr("&Use this build"), this);
    m_useButton->setObjectName(QStringLiteral("useEngineButton"));
    m_useButton->setEnabled(false);
    connect(m_table, &QTableWidget::itemSelectionChanged, this,
            [this] { m_useButton->setEnabled(!m_table->selectedItems().isEmpty()); });
    connect(m_useButton, &QPushButton::clicked, this, [this] {
        const QList<QTableWidgetItem*> selected = m_table->selectedItems();
        if (!selected.isEmpty()) {
            emit engineChosen(m_table->item(selected.front()->row(), 0)->text());
        }
    });

    m_backend = new QComboBox(this);
    m_backend->setObjectName(QStringLiteral("engineBackendCombo"));
    for (EngineBackend backend : {EngineBackend::Cpu, EngineBackend::Vulkan, EngineBackend::Cuda,
                                  EngineBackend::Hip, EngineBackend::Metal}) {
        m_backend->addItem(QString::fromLatin1(engineBackendName(backend).data()), static_cast<int>(backend));
    }
    m_backend->setCurrentIndex(m_backend->findData(static_cast<int>(preferred)));
    m_backend->setToolTip(tr("The backend of the build to get: Vulkan runs on AMD, Intel and NVIDIA GPUs"));
    m_fetchButton = new QPushButton(tr("&Get llama.cpp's release build"), this);
    m_fetchButton->setObjectName(QStringLiteral("fetchEngineButton"));
    m_fetchButton->setToolTip(
        tr("Downloads llama.cpp's latest official build for this machine from GitHub, "
           "checks its published sha256, and unpacks it into LlamaFit's engines folder"));
    connect(m_fetchButton, &QPushButton::clicked, this, &EnginesDialog::fetch);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("engineProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("enginesStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_useButton);
    buttons->addStretch(1);
    buttons->addWidget(m_backend);
    buttons->addWidget(m_fetchButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);
    layout->addWidget(m_progress);
    layout->addWidget(m_status);
    resize(900, 400);
    refresh();
}

EnginesDialog::~EnginesDialog() = default;

void EnginesDialog::refresh() {
    m_status->setText(tr("Looking for llama-server builds..."));
    const std::string root = defaultEnginesRoot();
    m_runner->run<std::vector<InstalledEngine>>(
        [root](HubClient&) {
            EngineDiscoveryOptions options;
            options.ownEngineFolders = ownEngineFolders(root, currentOsKind());
            return discoverEngines(options);
        },
        this,
        [this](std::vector<InstalledEngine> engines) {
            m_engines = std::move(engines);
            showEngines(m_current);
            emit refreshed();
        });
}

void EnginesDialog::showEngines(const QString& select) {
    m_table->setRowCount(0);
    for (const InstalledEngine& engine : m_engines) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, 0, readOnlyCell(QString::fromStdString(engine.location.path)));
        m_table->setItem(row, 1, readOnlyCell(QString::fromStdString(engine.location.origin)));
        QString build = QStringLiteral("-");
        if (engine.build) {
            build = QString::fromStdString(engine.build->version);
            if (engine.build->buildNumber) {
                build += QStringLiteral(" (b%1)").arg(*engine.build->buildNumber);
            }
        }
        m_table->setItem(row, 2, readOnlyCell(build));
        QString devices;
        if (engine.error) {
            devices = tr("does not run: %1").arg(QString::fromStdString(engine.error->message));
        } else {
            devices = QStringLiteral("CPU");
            for (const ListedDevice& device : engine.devices) {
                devices +=
                    QStringLiteral(", %1 (%2)")
                        .arg(QString::fromStdString(device.name), QString::fromStdString(device.description));
            }
        }
        m_table->setItem(row, 3, readOnlyCell(devices));
        if (!select.isEmpty() &&
            QFileInfo(select).canonicalFilePath() ==
                QFileInfo(QString::fromStdString(engine.location.path)).canonicalFilePath()) {
            m_table->selectRow(row);
        }
    }
    m_table->resizeColumnToContents(1);
    m_table->resizeColumnToContents(2);
    m_status->setText(m_engines.empty()
                          ? tr("No llama-server on this machine: get llama.cpp's release build.")
                          : tr("%n build(s) found.", "", int(m_engines.size())));
}

void EnginesDialog::fetch() {
    EngineFetchRequest request;
    request.releasesUrl = releasesUrl().toStdString();
    request.enginesRoot = defaultEnginesRoot();
    request.backend = static_cast<EngineBackend>(m_backend->currentData().toInt());
    request.os = currentOsKind();
    request.cpu = currentCpuName();
    m_fetchButton->setEnabled(false);
    m_progress->setValue(0);
    m_status->setText(tr("Getting llama.cpp's %1 build...").arg(m_backend->currentText()));
    QPointer<EnginesDialog> self(this);
    m_runner->run<Result<FetchedEngine>>(
        [request, self](HubClient& client) {
            int lastPermille = -1;
            return fetchEngine(client, request, [&](const HubDownloadProgress& progress) {
                const int permille = progress.totalBytes > 0
                                         ? static_cast<int>(1000 * progress.totalDone / progress.totalBytes)
                                         : 0;
                if (permille != lastPermille) {
                    lastPermille = permille;
                    QMetaObject::invokeMethod(
                        self.data(), [self, permille] { self->m_progress->setValue(permille); },
                        Qt::QueuedConnection);
                }
            });
        },
        this,
        [this](Result<FetchedEngine> fetched) {
            m_fetchButton->setEnabled(true);
            if (!fetched) {
                const QString message = tr("llama.cpp's build could not be had: %1")
                                            .arg(QString::fromStdString(fetched.error().message));
                m_status->setText(message);
                emit fetchFailed(message);
                return;
            }
            m_progress->setValue(1000);
            m_current = QString::fromStdString(fetched->program);
            emit engineChosen(m_current);
            refresh();
        });
}

} // namespace llamafit
