// Serving this machine's devices over ggml-rpc-server; see rpcservegroup.h.
#include "ui/cluster/rpcservegroup.h"
#include "core/common/units.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QStringList>
#include <QVBoxLayout>

namespace llamafit {

namespace {

// What "Allow access from the network" binds: every address of this machine.
constexpr const char* kAnyAddress = "0.0.0.0";

} // namespace

RpcServeGroup::RpcServeGroup(QWidget* parent)
    : QWidget(parent), m_process(new RpcServerProcess(this)), m_port(new QSpinBox(this)),
      m_devices(new QLineEdit(this)), m_expose(new QCheckBox(tr("Allow access from the network"), this)),
      m_warning(new QLabel(this)), m_startButton(new QPushButton(tr("Start"), this)),
      m_stopButton(new QPushButton(tr("Stop"), this)), m_status(new QLabel(this)) {
    setObjectName(QStringLiteral("rpcServeGroup"));
    setToolTip(tr("Run ggml-rpc-server here, so a llama-server (on another host, or this one) can put "
                  "layers on this machine's devices with --rpc"));
    m_port->setObjectName(QStringLiteral("rpcServePort"));
    m_port->setRange(1, 65535);
    m_port->setValue(kDefaultRpcServerPort);
    m_devices->setObjectName(QStringLiteral("rpcServeDevices"));
    m_devices->setPlaceholderText(tr("the server's choice"));
    m_devices->setToolTip(tr("-d: devices to serve, comma-separated (CPU, Vulkan0, CUDA0)"));
    m_expose->setObjectName(QStringLiteral("rpcServeExpose"));
    m_expose->setToolTip(tr("Listen on 0.0.0.0 instead of 127.0.0.1"));
    m_warning->setObjectName(QStringLiteral("rpcServeWarning"));
    // llama.cpp's own words, in English in both languages (ui/README.md).
    m_warning->setText(QString::fromUtf8(kRpcServerExposureWarning.data(),
                                         static_cast<qsizetype>(kRpcServerExposureWarning.size())));
    m_warning->setWordWrap(true);
    QPalette warningPalette = m_warning->palette();
    warningPalette.setColor(QPalette::WindowText, QColor(0xc0, 0x39, 0x2b));
    m_warning->setPalette(warningPalette);
    m_warning->hide();
    m_startButton->setObjectName(QStringLiteral("rpcServeStart"));
    m_stopButton->setObjectName(QStringLiteral("rpcServeStop"));
    m_status->setObjectName(QStringLiteral("rpcServeStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Port:"), m_port);
    form->addRow(tr("Devices (-d):"), m_devices);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(form);
    layout->addWidget(m_expose);
    layout->addWidget(m_warning);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_status, 1);
    buttons->addWidget(m_startButton, 0, Qt::AlignTop);
    buttons->addWidget(m_stopButton, 0, Qt::AlignTop);
    layout->addLayout(buttons);

    connect(m_expose, &QCheckBox::toggled, m_warning, &QLabel::setVisible);
    connect(m_startButton, &QPushButton::clicked, this, &RpcServeGroup::start);
    connect(m_stopButton, &QPushButton::clicked, this, &RpcServeGroup::stop);
    connect(m_process, &RpcServerProcess::stateChanged, this, &RpcServeGroup::refresh);
    refresh();
}

// The server stops with the group (RpcServerProcess's destructor stops and reaps it).
RpcServeGroup::~RpcServeGroup() = default;

RpcServerOptions RpcServeGroup::options() const {
    RpcServerOptions options;
    options.port = static_cast<std::uint16_t>(m_port->value());
    if (m_expose->isChecked()) {
        options.host = kAnyAddress;
    }
    for (const QString& device : m_devices->text().split(u',', Qt::SkipEmptyParts)) {
        options.devices.push_back(device.trimmed().toStdString());
    }
    return options;
}

void RpcServeGroup::start() {
    const QString llamaServer = m_serverProgram ? m_serverProgram() : QString();
    m_process->start(defaultRpcServerProgram(llamaServer), options());
}

void RpcServeGroup::stop() {
    m_process->stop();
}

void RpcServeGroup::refresh() {
    const RpcServerProcess::State state = m_process->state();
    const bool idle = state == RpcServerProcess::State::Stopped || state == RpcServerProcess::State::Failed;
    m_startButton->setEnabled(idle);
    m_stopButton->setEnabled(!idle && state != RpcServerProcess::State::Stopping);
    for (QWidget* field : std::initializer_list<QWidget*>{m_port, m_devices, m_expose}) {
        field->setEnabled(idle);
    }
    switch (state) {
    case RpcServerProcess::State::Stopped:
        m_status->setText(tr("Not serving."));
        break;
    case RpcServerProcess::State::Starting:
        m_status->setText(tr("Starting..."));
        break;
    case RpcServerProcess::State::Listening: {
        QStringList devices;
        for (const ListedDevice& device : m_process->devices()) {
            devices << tr("%1 (%2 MiB free)")
                           .arg(QString::fromStdString(device.name))
                           .arg(device.freeBytes / kMiB);
        }
        const RpcServerOptions& options = m_process->options();
        m_status->setText(tr("Listening on %1:%2: %3")
                              .arg(QString::fromStdString(options.host))
                              .arg(options.port)
                              .arg(devices.join(QStringLiteral(", "))));
        break;
    }
    case RpcServerProcess::State::Stopping:
        m_status->setText(tr("Stopping..."));
        break;
    case RpcServerProcess::State::Failed:
        m_status->setText(tr("Failed: %1").arg(QString::fromStdString(m_process->failure().message)));
        break;
    }
}

} // namespace llamafit
