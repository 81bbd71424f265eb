// Help > About; see aboutdialog.h.
#include "ui/aboutdialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>
#include <QtGlobal>

#include <qcustomplot.h>

namespace llamafit {

AboutDialog::AboutDialog(const QString& serverVersion, QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("aboutDialog"));
    setWindowTitle(tr("About LlamaFit"));
    // qVersion() is the Qt the app runs with, QT_VERSION_STR the one it was built against.
    m_versionsText = tr("LlamaFit %1\nQt %2 (built with %3)\nQCustomPlot %4\nllama-server: %5")
                         .arg(QStringLiteral(LLAMAFIT_VERSION), QString::fromLatin1(qVersion()),
                              QStringLiteral(QT_VERSION_STR), QStringLiteral(QCUSTOMPLOT_VERSION_STR),
                              serverVersion.isEmpty() ? tr("not probed yet") : serverVersion);
    auto* title = new QLabel(tr("<h2>LlamaFit</h2><p>Plan and launch llama.cpp's llama-server: see how much "
                                "memory it will take before it starts, then watch it run.</p>"),
                             this);
    title->setWordWrap(true);
    auto* versions = new QLabel(m_versionsText, this);
    versions->setObjectName(QStringLiteral("aboutVersionsLabel"));
    versions->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* sources = new QLabel(tr("Every sizing rule follows llama.cpp's own source (src/llama-kv-cache.cpp, "
                                  "src/llama-memory-recurrent.cpp, src/llama-model.cpp, ...) and is checked "
                                  "against what the real llama-server allocates."),
                               this);
    sources->setWordWrap(true);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addWidget(versions);
    layout->addWidget(sources);
    layout->addWidget(buttons);
}

} // namespace llamafit
