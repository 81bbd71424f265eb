// FailureDialog: reason, evidence, full log, and for an allocation failure one button per fix.

#include "ui/launch/failuredialog.h"

#include "core/system/serverlauncher.h"
#include "ui/chartstyle.h"
#include "ui/launch/fixtext.h"
#include "ui/sizingsession.h"

#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QGroupBox>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace llamafit {

namespace {

QLabel* wrappedLabel(const QString& text, const QString& objectName, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setObjectName(objectName);
    label->setWordWrap(true);
    label->setTextFormat(Qt::PlainText);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

FailureDialog::FailureDialog(const LaunchFailure& failure, const SizingSession& session, QWidget* parent)
    : FailureDialog(failure, session, session.settings(), parent) {}

FailureDialog::FailureDialog(const LaunchFailure& failure, const SizingSession& session,
                             const ServerSettings& launchedSettings, QWidget* parent)
    : QDialog(parent), m_failure(failure) {
    setObjectName(QStringLiteral("failureDialog"));
    setMinimumWidth(640); // log lines and fix sentences are long
    setWindowTitle(tr("llama-server failed"));
    auto* layout = new QVBoxLayout(this);

    const QString reason =
        QString::fromUtf8(launchFailureName(failure.reason).data(),
                          static_cast<qsizetype>(launchFailureName(failure.reason).size()));
    auto* reasonLabel = wrappedLabel(tr("%1: %2").arg(reason, QString::fromStdString(failure.message)),
                                     QStringLiteral("failureReasonLabel"), this);
    reasonLabel->setToolTip(tr("Why the launch ended, as read from llama-server's log and exit"));
    layout->addWidget(reasonLabel);

    if (!failure.evidence.empty()) {
        auto* evidence = new QListWidget(this);
        evidence->setObjectName(QStringLiteral("failureEvidenceList"));
        evidence->setToolTip(tr("The log lines that decided the diagnosis"));
        evidence->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
        evidence->setWordWrap(true); // whole log lines, not elided ones
        evidence->setTextElideMode(Qt::ElideNone);
        for (const std::string& line : failure.evidence) {
            evidence->addItem(QString::fromStdString(line));
        }
        evidence->setMaximumHeight(evidence->sizeHintForRow(0) * 4 + 2 * evidence->frameWidth());
        layout->addWidget(evidence);
    }

    if (failure.reason == LaunchFailureReason::AllocationFailed) {
        addAllocationFixes(session, launchedSettings, layout);
    }
    if (!m_diagnosis || m_diagnosis->fixes.empty()) {
        auto* advice = wrappedLabel(suggestion(failure), QStringLiteral("failureSuggestionLabel"), this);
        advice->setToolTip(tr("What to change before the next launch"));
        layout->addWidget(advice);
    }

    auto* logToggle = new QToolButton(this);
    logToggle->setObjectName(QStringLiteral("failureLogToggle"));
    logToggle->setText(tr("Full log"));
    logToggle->setToolTip(tr("Show everything llama-server printed (stdout and stderr)"));
    logToggle->setCheckable(true);
    logToggle->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    logToggle->setArrowType(Qt::RightArrow);
    layout->addWidget(logToggle);
    auto* logView = new QPlainTextEdit(QString::fromStdString(failure.log), this);
    logView->setObjectName(QStringLiteral("failureLogView"));
    logView->setToolTip(tr("llama-server's complete output, read-only"));
    logView->setReadOnly(true);
    logView->setLineWrapMode(QPlainTextEdit::NoWrap);
    logView->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    logView->setVisible(false);
    layout->addWidget(logView, 1);
    connect(logToggle, &QToolButton::toggled, this, [logToggle, logView](bool shown) {
        logView->setVisible(shown);
        logToggle->setArrowType(shown ? Qt::DownArrow : Qt::RightArrow);
    });

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton* close = buttons->button(QDialogButtonBox::Close);
    close->setObjectName(QStringLiteral("failureCloseButton"));
    close->setToolTip(tr("Close without changing the settings"));
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
}

void FailureDialog::addAllocationFixes(const SizingSession& session, const ServerSettings& settings,
                                       QVBoxLayout* layout) {
    const std::optional<std::uint64_t> budget = allocationBudgetBytes(m_failure);
    if (!budget || !m_failure.allocation) {
        return;
    }
    Result<FailureDiagnosis> diagnosis = diagnoseAllocationFailure(
        session.sizingModel(), settings, session.gpus(), *m_failure.allocation, *budget);
    if (!diagnosis) {
        layout->addWidget(
            wrappedLabel(tr("No fix computed: %1").arg(QString::fromStdString(diagnosis.error().message)),
                         QStringLiteral("failureSummaryLabel"), this));
        return;
    }
    m_diagnosis = std::move(*diagnosis);
    auto* summary = wrappedLabel(
        tr("%1\n(%2 can hold at most %3: the buffers allocated before the failure plus the one that failed.)")
            .arg(diagnosisSummaryText(*m_diagnosis), QString::fromStdString(m_diagnosis->device),
                 formatMiBText(*budget)),
        QStringLiteral("failureSummaryLabel"), this);
    layout->addWidget(summary);
    if (m_diagnosis->fixes.empty()) {
        return;
    }
    auto* box = new QGroupBox(tr("Change and launch again"), this);
    auto* boxLayout = new QVBoxLayout(box);
    for (const FailureFix& fix : m_diagnosis->fixes) {
        auto* button = new QPushButton(fixChangeText(fix), box);
        button->setObjectName(QStringLiteral("fixButton_") + QString::fromUtf8(fixKindName(fix.kind)));
        button->setToolTip(fixSentenceText(fix, *m_diagnosis));
        const ServerSettings fixed = fix.settings;
        connect(button, &QPushButton::clicked, this, [this, fixed] {
            emit fixChosen(fixed);
            accept();
        });
        boxLayout->addWidget(button);
    }
    layout->addWidget(box);
}

QString FailureDialog::suggestion(const LaunchFailure& failure) {
    switch (failure.reason) {
    case LaunchFailureReason::PortInUse:
        return failure.port
                   ? tr("Port %1 is taken by another program: pick another port, or 0 for any free port.")
                         .arg(*failure.port)
                   : tr("The port is taken by another program: pick another port, or 0 for any free port.");
    case LaunchFailureReason::BinaryMissing:
    case LaunchFailureReason::BinaryNotExecutable:
        return tr("Choose the llama-server binary with Browse.");
    case LaunchFailureReason::LibraryMissing:
        return tr("Unpack the whole llama.cpp release into one folder, or fetch a build in Server > "
                  "llama-server builds: llama-server needs the libraries that came with it.");
    case LaunchFailureReason::FlagRejected:
        return tr("This llama-server does not accept %1: remove it from the extra flags, or choose a build "
                  "that knows it.")
            .arg(failure.rejectedFlag.empty() ? tr("a flag") : QString::fromStdString(failure.rejectedFlag));
    case LaunchFailureReason::ModelMissing:
        return tr("The model file is gone: choose it again in the library.");
    case LaunchFailureReason::ModelInvalid:
    case LaunchFailureReason::ModelLoadFailed:
        return tr("This llama-server cannot load the model: a newer build may know its architecture.");
    case LaunchFailureReason::AllocationFailed:
        if (!failure.rpcEndpoint.empty()) {
            return tr("Free memory on the RPC host %1, or give it a smaller share (-ts), or lower the "
                      "context, the KV cache types or the slots.")
                .arg(QString::fromStdString(failure.rpcEndpoint));
        }
        return tr("Lower the context, the KV cache types, the slots or the GPU layers.");
    case LaunchFailureReason::RpcHostUnreachable:
        return tr("Nothing listens at %1: start ggml-rpc-server on that host (ggml-rpc-server -H ADDRESS -p "
                  "PORT), "
                  "or remove it from --rpc.")
            .arg(failure.rpcEndpoint.empty() ? tr("an RPC server's address")
                                             : QString::fromStdString(failure.rpcEndpoint));
    case LaunchFailureReason::RpcProtocolMismatch:
        return tr("Run the same llama.cpp build on every host: the RPC protocol changes between builds.");
    case LaunchFailureReason::RpcHostLost:
        return failure.rpcEndpoint.empty()
                   ? tr("An RPC host went away: restart its ggml-rpc-server, then launch again.")
                   : tr("The RPC host %1 went away: restart its ggml-rpc-server, then launch again.")
                         .arg(QString::fromStdString(failure.rpcEndpoint));
    case LaunchFailureReason::Hang:
        return tr("llama-server did not answer /health in time: check the log, then try again.");
    case LaunchFailureReason::CrashedBySignal:
    case LaunchFailureReason::ExitedDuringGeneration:
    case LaunchFailureReason::ExitedUnexpectedly:
        break;
    }
    return tr("See the full log below.");
}

} // namespace llamafit
