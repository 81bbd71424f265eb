// The commands for a ggml-rpc-server on another host; see rpccommandsdialog.h.
#include "ui/cluster/rpccommandsdialog.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace llamafit {

RpcCommandsDialog::RpcCommandsDialog(std::uint16_t port, QWidget* parent)
    : QDialog(parent), m_port(port), m_format(new QComboBox(this)), m_program(new QLineEdit(this)),
      m_allAddresses(new QCheckBox(tr("Listen on all addresses (0.0.0.0)"), this)),
      m_text(new QPlainTextEdit(this)) {
    setWindowTitle(tr("ggml-rpc-server on another host"));
    m_format->setObjectName(QStringLiteral("rpcCommandsFormat"));
    m_format->addItems({tr("Shell (sh)"), tr("systemd unit"), tr("Windows batch file (.bat)")});
    m_program->setObjectName(QStringLiteral("rpcCommandsProgram"));
    m_program->setText(QStringLiteral("ggml-rpc-server"));
    m_program->setToolTip(tr("The ggml-rpc-server on that host: a path, or a name on its PATH"));
    m_allAddresses->setObjectName(QStringLiteral("rpcCommandsAllAddresses"));
    m_allAddresses->setToolTip(tr("Needed for a llama-server on another machine to reach it; the server has "
                                  "no authentication"));
    m_text->setObjectName(QStringLiteral("rpcCommandsText"));
    m_text->setReadOnly(true);
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* copy = buttons->addButton(tr("Copy"), QDialogButtonBox::ActionRole);
    QPushButton* save = buttons->addButton(tr("Save..."), QDialogButtonBox::ActionRole);
    copy->setObjectName(QStringLiteral("rpcCommandsCopy"));
    save->setObjectName(QStringLiteral("rpcCommandsSave"));

    auto* form = new QFormLayout;
    form->addRow(tr("Format:"), m_format);
    form->addRow(tr("Program:"), m_program);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(m_allAddresses);
    layout->addWidget(m_text, 1);
    layout->addWidget(buttons);

    connect(m_format, &QComboBox::currentIndexChanged, this, &RpcCommandsDialog::refresh);
    connect(m_program, &QLineEdit::textChanged, this, &RpcCommandsDialog::refresh);
    connect(m_allAddresses, &QCheckBox::toggled, this, &RpcCommandsDialog::refresh);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(QString::fromStdString(m_script)); });
    connect(save, &QPushButton::clicked, this, [this] {
        static const char* const kSuffixes[] = {".sh", ".service", ".bat"};
        const QString suggested = QStringLiteral("ggml-rpc-server-%1").arg(m_port) +
                                  QLatin1String(kSuffixes[m_format->currentIndex()]);
        const QString path = QFileDialog::getSaveFileName(this, tr("Save the commands"), suggested);
        if (!path.isEmpty()) {
            saveTo(path);
        }
    });
    resize(640, 360);
    refresh();
}

RpcServerOptions RpcCommandsDialog::options() const {
    RpcServerOptions options;
    options.port = m_port;
    if (m_allAddresses->isChecked()) {
        options.host = "0.0.0.0";
    }
    return options;
}

QString RpcCommandsDialog::text() const {
    return m_text->toPlainText();
}

bool RpcCommandsDialog::saveTo(const QString& path) {
    QFile file(path);
    // What the core made, not the text box's: the .bat keeps its CRLF there.
    const QByteArray bytes = QByteArray::fromStdString(m_script);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size()) {
        m_text->setPlainText(tr("Could not write %1: %2").arg(path, file.errorString()));
        return false;
    }
    return true;
}

void RpcCommandsDialog::refresh() {
    const std::string program = m_program->text().trimmed().toStdString();
    Result<std::string> script = makeError("export.unrepresentable", "");
    switch (static_cast<Format>(m_format->currentIndex())) {
    case Format::Shell:
        script = rpcServerShellScript(program, options());
        break;
    case Format::Systemd:
        script = rpcServerSystemdUnit(program, options());
        break;
    case Format::Batch:
        script = rpcServerBatchFile(program, options());
        break;
    }
    m_script = script ? *script : std::string();
    m_text->setPlainText(script ? QString::fromStdString(*script)
                                : QString::fromStdString(script.error().message));
}

} // namespace llamafit
