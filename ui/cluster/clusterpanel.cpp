// The RPC hosts and the -ts split; see clusterpanel.h.
#include "ui/cluster/clusterpanel.h"
#include "core/common/units.h"

#include "core/flags/flagvalues.h"
#include "core/server/rpchostusage.h"
#include "core/server/rpcservercommand.h"
#include "core/sizing/rpcdevices.h"
#include "core/sizing/rpctraffic.h"
#include "core/sizing/splitsolver.h"
#include "core/system/rpchostquery.h"
#include "ui/cluster/rpccommandsdialog.h"
#include "ui/cluster/rpcservegroup.h"
#include "ui/cluster/tensorsplitbar.h"
#include "ui/sessionspeed.h"
#include "ui/sizingsession.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStandardPaths>
#include <QStringList>
#include <QTableWidget>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>

namespace llamafit {

namespace {

// --list-devices with --rpc connects to each host once; a host that does not answer makes
// llama.cpp give up well within this.
constexpr std::chrono::milliseconds kAskTimeout{20000};

// A new row's endpoint: the last row's host with the next port, else ggml-rpc-server's default.
QString endpointAfter(const QString& last) {
    const std::optional<std::uint16_t> port = rpcEndpointPort(last.toStdString());
    if (!port || *port == 65535) {
        return QStringLiteral("127.0.0.1:%1").arg(kDefaultRpcServerPort);
    }
    return last.left(last.indexOf(u':') + 1) + QString::number(*port + 1);
}

// -ts as the command line spells it (core/flags/flagvalues.h).
QString splitText(const std::vector<double>& split) {
    return QString::fromStdString(tensorSplitText(split));
}

QString mibText(double mib) {
    return QString::number(mib, 'f', 0);
}

} // namespace

ClusterPanel::ClusterPanel(SizingSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_table(new QTableWidget(0, 2, this)),
      m_addButton(new QPushButton(tr("Add host"), this)),
      m_removeButton(new QPushButton(tr("Remove host"), this)),
      m_askButton(new QPushButton(tr("Ask hosts"), this)), m_errorLabel(new QLabel(this)),
      m_statusLabel(new QLabel(this)), m_splitBar(new TensorSplitBar(session, this)),
      m_defaultSplitButton(new QPushButton(tr("Default (by free memory)"), this)),
      m_splitLabel(new QLabel(this)), m_bestSplitButton(new QPushButton(tr("Best split"), this)),
      m_bestSplitLabel(new QLabel(this)), m_networkLabel(new QLabel(this)),
      m_hostUsageLabel(new QLabel(this)), m_serveToggle(new QToolButton(this)),
      m_commandsButton(new QPushButton(tr("Commands for another host..."), this)),
      m_serveGroup(new RpcServeGroup(this)), m_speed(std::make_unique<SessionSpeed>(session)) {
    m_table->setObjectName(QStringLiteral("clusterHostTable"));
    m_table->setHorizontalHeaderLabels({tr("Host (HOST:PORT)"), tr("Free MiB")});
    m_table->horizontalHeader()->setSectionResizeMode(kEndpointColumn, QHeaderView::Stretch);
    m_table->horizontalHeader()->setSectionResizeMode(kFreeColumn, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setToolTip(tr("The ggml-rpc-servers llama-server splits the model over besides this machine "
                           "(--rpc), in order, and the free memory each reports"));
    m_table->setMinimumHeight(m_table->horizontalHeader()->sizeHint().height() * 3);
    m_addButton->setObjectName(QStringLiteral("addHostButton"));
    m_removeButton->setObjectName(QStringLiteral("removeHostButton"));
    m_askButton->setObjectName(QStringLiteral("askHostsButton"));
    m_askButton->setToolTip(tr("Run llama-server --rpc ... --list-devices: each host answers with the "
                               "free memory it really has"));
    m_errorLabel->setObjectName(QStringLiteral("clusterErrorLabel"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette errorPalette = m_errorLabel->palette();
    errorPalette.setColor(QPalette::WindowText, QColor(0xc0, 0x39, 0x2b));
    m_errorLabel->setPalette(errorPalette);
    m_errorLabel->hide();
    m_statusLabel->setObjectName(QStringLiteral("clusterStatusLabel"));
    m_statusLabel->setWordWrap(true);
    m_statusLabel->hide(); // shown with text only: the dock must fit a 1366x768 screen
    m_defaultSplitButton->setObjectName(QStringLiteral("defaultSplitButton"));
    m_defaultSplitButton->setToolTip(
        tr("No -ts: llama.cpp splits the layers by the free memory each device reports"));
    m_splitLabel->setObjectName(QStringLiteral("tensorSplitLabel"));
    m_splitLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_splitLabel->setWordWrap(true); // a long -ts must not widen the left docks
    m_bestSplitButton->setObjectName(QStringLiteral("bestSplitButton"));
    m_bestSplitButton->setToolTip(tr("The -ts that lets the largest context fit every device, searched layer "
                                     "by layer; -c stays as it is"));
    for (QLabel* label : {m_bestSplitLabel, m_networkLabel, m_hostUsageLabel}) {
        label->setWordWrap(true);
        label->setTextInteractionFlags(Qt::TextSelectableByMouse);
        label->hide();
    }
    m_bestSplitLabel->setObjectName(QStringLiteral("bestSplitLabel"));
    m_networkLabel->setObjectName(QStringLiteral("networkLabel"));
    m_networkLabel->setToolTip(tr("The activations cross to the next device after its last layer, and the "
                                  "logits come back; a link's latency adds to this per RPC host"));
    m_hostUsageLabel->setObjectName(QStringLiteral("hostUsageLabel"));
    m_serveToggle->setObjectName(QStringLiteral("serveToggle"));
    m_serveToggle->setText(tr("Serve this machine"));
    m_serveToggle->setCheckable(true);
    m_serveToggle->setArrowType(Qt::RightArrow);
    m_serveToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    m_serveToggle->setAutoRaise(true);
    m_serveGroup->hide();
    m_commandsButton->setObjectName(QStringLiteral("rpcCommandsButton"));
    m_commandsButton->setToolTip(tr("A shell line, systemd unit or .bat that starts ggml-rpc-server on the "
                                    "selected host"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_table);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_addButton);
    buttons->addWidget(m_removeButton);
    buttons->addStretch(1);
    buttons->addWidget(m_askButton);
    layout->addLayout(buttons);
    layout->addWidget(m_errorLabel);
    layout->addWidget(m_statusLabel);
    layout->addWidget(m_hostUsageLabel);
    auto* splitTitle = new QLabel(tr("Layer split (-ts), in llama.cpp's device order:"), this);
    splitTitle->setWordWrap(true);
    layout->addWidget(splitTitle);
    layout->addWidget(m_splitBar);
    auto* splitRow = new QHBoxLayout;
    splitRow->addWidget(m_splitLabel, 1);
    splitRow->addWidget(m_defaultSplitButton, 0, Qt::AlignTop);
    splitRow->addWidget(m_bestSplitButton, 0, Qt::AlignTop);
    layout->addLayout(splitRow);
    layout->addWidget(m_bestSplitLabel);
    layout->addWidget(m_networkLabel);
    auto* serveRow = new QHBoxLayout;
    serveRow->addWidget(m_serveToggle);
    serveRow->addStretch(1);
    serveRow->addWidget(m_commandsButton);
    layout->addLayout(serveRow);
    layout->addWidget(m_serveGroup);
    layout->addStretch(1);

    connect(m_addButton, &QPushButton::clicked, this, [this] {
        const int rows = m_table->rowCount();
        const QString last = rows > 0 && m_table->item(rows - 1, kEndpointColumn) != nullptr
                                 ? m_table->item(rows - 1, kEndpointColumn)->text().trimmed()
                                 : QString();
        addHost(endpointAfter(last), std::nullopt);
        m_table->setCurrentCell(m_table->rowCount() - 1, kEndpointColumn);
    });
    connect(m_removeButton, &QPushButton::clicked, this, &ClusterPanel::removeSelectedHost);
    connect(m_askButton, &QPushButton::clicked, this, &ClusterPanel::askHosts);
    connect(m_table, &QTableWidget::cellChanged, this, &ClusterPanel::onTableEdited);
    connect(m_defaultSplitButton, &QPushButton::clicked, this, [this] {
        ServerSettings settings = m_session->settings();
        settings.tensorSplit.clear();
        m_session->setSettings(settings);
    });
    connect(m_bestSplitButton, &QPushButton::clicked, this, &ClusterPanel::applyBestSplit);
    connect(m_commandsButton, &QPushButton::clicked, this, &ClusterPanel::openCommands);
    connect(m_serveToggle, &QToolButton::toggled, this, [this](bool shown) {
        m_serveToggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
        m_serveGroup->setVisible(shown);
    });
    m_serveGroup->setServerProgramSource([this] { return serverProgram(); });
    connect(session, &SizingSession::machineChanged, this, &ClusterPanel::refreshFromSession);
    connect(session, &SizingSession::settingsChanged, this, &ClusterPanel::refreshSplitLabel);
    connect(session, &SizingSession::estimateChanged, this, &ClusterPanel::refreshNetworkLine);
    // The best split's numbers are for the model and devices it was found for.
    connect(session, &SizingSession::modelChanged, m_bestSplitLabel, &QLabel::hide);
    connect(session, &SizingSession::machineChanged, m_bestSplitLabel, &QLabel::hide);
    refreshFromSession();
    refreshSplitLabel();
    refreshNetworkLine();
}

ClusterPanel::~ClusterPanel() {
    if (m_askThread != nullptr) {
        m_askThread->wait();
    }
}

QString ClusterPanel::serverProgram() const {
    if (m_serverProgram) {
        if (const QString program = m_serverProgram(); !program.isEmpty()) {
            return program;
        }
    }
    const QString fromEnvironment = qEnvironmentVariable("LLAMAFIT_LLAMA_SERVER");
    return fromEnvironment.isEmpty() ? QStringLiteral("llama-server") : fromEnvironment;
}

void ClusterPanel::addHost(const QString& endpoint, std::optional<std::uint64_t> freeMiB) {
    m_filling = true;
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    m_table->setItem(row, kEndpointColumn, new QTableWidgetItem(endpoint));
    auto* free = new QTableWidgetItem(freeMiB ? QString::number(*freeMiB) : QString());
    free->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_table->setItem(row, kFreeColumn, free);
    m_filling = false;
    onTableEdited();
}

void ClusterPanel::removeSelectedHost() {
    const int row = m_table->currentRow() >= 0 ? m_table->currentRow() : m_table->rowCount() - 1;
    if (row < 0) {
        return;
    }
    m_table->removeRow(row);
    onTableEdited();
}

Result<std::vector<RpcHost>> ClusterPanel::hostsInTable() const {
    std::vector<RpcHost> hosts;
    std::set<std::string> seen;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem* endpointItem = m_table->item(row, kEndpointColumn);
        const QTableWidgetItem* freeItem = m_table->item(row, kFreeColumn);
        const QString endpoint = endpointItem != nullptr ? endpointItem->text().trimmed() : QString();
        if (Result<bool> valid = checkRpcEndpoint(endpoint.toStdString()); !valid) {
            return makeError("cluster.bad-endpoint", tr("Host %1: %2")
                                                         .arg(row + 1)
                                                         .arg(QString::fromStdString(valid.error().message))
                                                         .toStdString());
        }
        if (!seen.insert(endpoint.toStdString()).second) {
            return makeError(
                "cluster.repeated-endpoint",
                tr("%1 is listed twice: --rpc names each server once").arg(endpoint).toStdString());
        }
        const QString freeText = freeItem != nullptr ? freeItem->text().trimmed() : QString();
        bool isNumber = false;
        const qulonglong freeMiB = freeText.toULongLong(&isNumber);
        if (freeText.isEmpty() || (isNumber && freeMiB == 0)) {
            return makeError(
                "cluster.no-free-memory",
                tr("Enter the free memory of %1 in MiB, or ask the hosts").arg(endpoint).toStdString());
        }
        if (!isNumber) {
            return makeError("cluster.bad-free-memory",
                             tr("The free memory of %1 must be a whole number of MiB, not \"%2\"")
                                 .arg(endpoint, freeText)
                                 .toStdString());
        }
        hosts.push_back(RpcHost{endpoint.toStdString(), freeMiB * kMiB});
    }
    return hosts;
}

void ClusterPanel::onTableEdited() {
    if (m_filling) {
        return;
    }
    m_removeButton->setEnabled(m_table->rowCount() > 0);
    Result<std::vector<RpcHost>> hosts = hostsInTable();
    if (!hosts) {
        // The session keeps the last complete list: a half-typed endpoint is not a plan.
        showError(QString::fromStdString(hosts.error().message));
        return;
    }
    showError({});
    m_session->setRpcHosts(std::move(*hosts));
}

void ClusterPanel::refreshFromSession() {
    m_removeButton->setEnabled(m_table->rowCount() > 0);
    const Result<std::vector<RpcHost>> shown = hostsInTable();
    if (!shown || *shown == m_session->rpcHosts()) {
        return; // the user's unfinished row stays as typed
    }
    m_filling = true;
    m_table->setRowCount(0);
    for (const RpcHost& host : m_session->rpcHosts()) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        m_table->setItem(row, kEndpointColumn, new QTableWidgetItem(QString::fromStdString(host.endpoint)));
        auto* free = new QTableWidgetItem(QString::number(host.freeBytes / kMiB));
        free->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        m_table->setItem(row, kFreeColumn, free);
    }
    m_filling = false;
    m_removeButton->setEnabled(m_table->rowCount() > 0);
}

void ClusterPanel::refreshSplitLabel() {
    const std::vector<double>& split = m_session->settings().tensorSplit;
    m_defaultSplitButton->setEnabled(!split.empty());
    m_bestSplitButton->setEnabled(m_session->gpus().size() >= 2);
    if (m_session->gpus().size() < 2) {
        m_bestSplitLabel->hide();
    }
    m_splitLabel->setText(split.empty() ? tr("No -ts: by each device's free memory")
                                        : QStringLiteral("-ts ") + splitText(split));
    if (m_bestSplitSettings && *m_bestSplitSettings != m_session->settings()) {
        m_bestSplitSettings.reset();
        m_bestSplitLabel->hide();
    }
}

void ClusterPanel::applyBestSplit() {
    const SplitFit fit = bestTensorSplit(m_session->sizingModel(), m_session->settings(), m_session->gpus(),
                                         m_session->budget());
    const QString defaultText =
        fit.defaultSplitContextTokens
            ? tr("llama.cpp's default split fits -c %1").arg(*fit.defaultSplitContextTokens)
            : tr("llama.cpp's default split fits no context");
    m_bestSplitLabel->show();
    m_bestSplitSettings = m_session->settings();
    if (!fit.fits) {
        m_bestSplitLabel->setText(tr("No split fits even -c 256 on these devices; %1.").arg(defaultText));
        return;
    }
    QString text = tr("Best split -ts %1 fits -c %2; %3.")
                       .arg(splitText(fit.tensorSplit))
                       .arg(fit.contextTokens)
                       .arg(defaultText);
    const std::optional<std::uint32_t> planned = m_session->settings().contextTokens;
    if (planned && *planned > fit.contextTokens) {
        text += QLatin1Char(' ') + tr("The plan's -c %1 is larger than that.").arg(*planned);
    }
    m_bestSplitLabel->setText(text);
    ServerSettings settings = m_session->settings();
    settings.tensorSplit = fit.tensorSplit;
    m_bestSplitSettings = settings;
    m_session->setSettings(settings);
}

void ClusterPanel::refreshNetworkLine() {
    if (m_session->rpcHosts().empty()) {
        m_networkLabel->hide();
        return;
    }
    const Result<RpcTraffic> traffic =
        rpcTrafficPerToken(m_session->model().info, m_session->settings(), m_session->gpus());
    if (!traffic) {
        m_networkLabel->setText(
            tr("Network traffic unknown: %1").arg(QString::fromStdString(traffic.error().message)));
        m_networkLabel->show();
        return;
    }
    QStringList perLink;
    for (double bitsPerSecond : kLinkBitsPerSecond) {
        perLink << QString::number(networkSecondsPerToken(*traffic, bitsPerSecond) * 1000.0, 'f', 2);
    }
    QString text =
        tr("%1 KiB per token cross the network; +%2 ms at 1 Gbit/s, +%3 at 2.5, +%4 at 10.")
            .arg(QString::number(static_cast<double>(traffic->networkBytesPerToken) / 1024.0, 'f', 1))
            .arg(perLink[0], perLink[1], perLink[2]);
    if (const std::optional<SpeedPrediction> speed = m_speed->predict(); speed && speed->decodeTpsBound > 0) {
        QStringList bounds;
        for (double bitsPerSecond : kLinkBitsPerSecond) {
            bounds << QString::number(
                withNetworkFloor(speed->decodeTpsBound, networkSecondsPerToken(*traffic, bitsPerSecond)), 'f',
                1);
        }
        text += QLatin1Char(' ') + tr("Decode bound %1 t/s becomes %2 / %3 / %4 t/s.")
                                       .arg(QString::number(speed->decodeTpsBound, 'f', 1))
                                       .arg(bounds[0], bounds[1], bounds[2]);
    }
    m_networkLabel->setText(text);
    m_networkLabel->show();
}

void ClusterPanel::watchServer(const ServerProcess* process) {
    connect(process, &ServerProcess::stateChanged, this, [this, process](ServerProcess::State state) {
        switch (state) {
        case ServerProcess::State::Starting: {
            const Result<MemoryEstimate>& estimate = m_session->estimate();
            m_runPrediction = estimate ? std::optional<MemoryEstimate>(*estimate) : std::nullopt;
            showServerLog({}, std::nullopt);
            break;
        }
        case ServerProcess::State::Ready:
            // At Ready the log holds every buffer line (see LiveView::compare).
            showServerLog(process->log(), m_runPrediction);
            break;
        case ServerProcess::State::Stopped:
        case ServerProcess::State::Failed:
            showServerLog({}, std::nullopt);
            break;
        default:
            break;
        }
    });
}

void ClusterPanel::showServerLog(const std::string& log, const std::optional<MemoryEstimate>& prediction) {
    const Result<AllocationLog> allocations =
        log.empty() ? makeError("log.empty", "") : parseAllocationLog(log);
    const std::vector<RpcHostUsage> usage =
        allocations ? rpcHostUsage(*allocations, prediction) : std::vector<RpcHostUsage>{};
    if (usage.empty()) {
        m_hostUsageLabel->clear();
        m_hostUsageLabel->hide();
        return;
    }
    QStringList lines{tr("Running llama-server, per RPC host:")};
    for (const RpcHostUsage& host : usage) {
        QString line = QStringLiteral("%1 (%2): ")
                           .arg(QString::fromStdString(host.endpoint), QString::fromStdString(host.device));
        line += host.freeAtStartMiB ? tr("%1 MiB allocated of %2 MiB free")
                                          .arg(mibText(host.allocatedMiB))
                                          .arg(*host.freeAtStartMiB)
                                    : tr("%1 MiB allocated").arg(mibText(host.allocatedMiB));
        if (host.predictedMiB) {
            line += QLatin1Char(' ') + tr("(predicted %1 MiB)").arg(mibText(*host.predictedMiB));
        }
        lines << line;
    }
    m_hostUsageLabel->setText(lines.join(u'\n'));
    m_hostUsageLabel->show();
}

void ClusterPanel::openCommands() {
    const int row = m_table->currentRow() >= 0 ? m_table->currentRow() : 0;
    const QTableWidgetItem* item = m_table->rowCount() > 0 ? m_table->item(row, kEndpointColumn) : nullptr;
    const QString endpoint = item != nullptr ? item->text().trimmed() : QString();
    auto* dialog =
        new RpcCommandsDialog(rpcEndpointPort(endpoint.toStdString()).value_or(kDefaultRpcServerPort), this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->open();
}

void ClusterPanel::showStatus(const QString& message) {
    m_statusLabel->setText(message);
    m_statusLabel->setVisible(!message.isEmpty());
}

void ClusterPanel::showError(const QString& message) {
    m_errorLabel->setText(message);
    m_errorLabel->setVisible(!message.isEmpty());
}

void ClusterPanel::askHosts() {
    if (m_askThread != nullptr) {
        return;
    }
    RpcHostQuery query;
    query.llamaServer = serverProgram().toStdString();
    query.timeout = kAskTimeout;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem* item = m_table->item(row, kEndpointColumn);
        const QString endpoint = item != nullptr ? item->text().trimmed() : QString();
        if (Result<bool> valid = checkRpcEndpoint(endpoint.toStdString()); !valid) {
            showError(tr("Host %1: %2").arg(row + 1).arg(QString::fromStdString(valid.error().message)));
            emit hostsAsked(false);
            return;
        }
        query.endpoints.push_back(endpoint.toStdString());
    }
    if (query.endpoints.empty()) {
        showStatus(tr("Add a host first."));
        emit hostsAsked(false);
        return;
    }
    m_askButton->setEnabled(false);
    showStatus(tr("Asking %1...").arg(QString::fromStdString(query.llamaServer)));
    auto result = std::make_shared<Result<std::vector<ListedDevice>>>(makeError("rpc.no-answer", ""));
    m_askResult = result;
    m_askThread = QThread::create([result, query] { *result = queryListedDevices(query); });
    m_askThread->setParent(this);
    // Delivered to the GUI thread once the worker is done with the result.
    connect(m_askThread, &QThread::finished, this, &ClusterPanel::onAskFinished);
    m_askThread->start();
}

void ClusterPanel::onAskFinished() {
    const Result<std::vector<ListedDevice>> result = std::move(*m_askResult);
    m_askResult.reset();
    m_askThread->deleteLater();
    m_askThread = nullptr;
    m_askButton->setEnabled(true);
    if (!result) {
        showStatus({});
        showError(tr("Could not ask the hosts: %1").arg(QString::fromStdString(result.error().message)));
        emit hostsAsked(false);
        return;
    }
    // llama.cpp lists the RPC devices first, RPC0, RPC1, ... in --rpc order, each described by
    // its endpoint: matched by endpoint, else by position.
    std::vector<const ListedDevice*> rpcDevices;
    for (const ListedDevice& device : *result) {
        if (device.name.starts_with("RPC")) {
            rpcDevices.push_back(&device);
        }
    }
    m_filling = true;
    int answered = 0;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const std::string endpoint = m_table->item(row, kEndpointColumn)->text().trimmed().toStdString();
        const ListedDevice* byEndpoint = findRpcDevice(*result, endpoint);
        const ListedDevice* device = byEndpoint != nullptr ? byEndpoint
                                     : static_cast<std::size_t>(row) < rpcDevices.size()
                                         ? rpcDevices[static_cast<std::size_t>(row)]
                                         : nullptr;
        if (device != nullptr) {
            m_table->item(row, kFreeColumn)->setText(QString::number(device->freeBytes / kMiB));
            ++answered;
        }
    }
    m_filling = false;
    showStatus(tr("%n host(s) answered.", nullptr, answered));
    onTableEdited();
    emit hostsAsked(true);
}

} // namespace llamafit
