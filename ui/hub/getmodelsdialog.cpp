// "Get models": Hugging Face repos sized for this machine, downloaded into the shared cache; see
// getmodelsdialog.h.

#include "ui/hub/getmodelsdialog.h"
#include "ui/hub/readonlycell.h"

#include "core/hub/hubcachelayout.h"
#include "core/machine/speedefficiency.h"
#include "core/sizing/kvpairs.h"
#include "core/system/benchmarkstore.h"
#include "core/system/hubdownload.h"
#include "core/system/processenvironment.h"
#include "ui/hub/hubtaskrunner.h"

#include <QFont>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace llamafit {

namespace {

constexpr std::uint32_t kSearchLimit = 30;
constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kBytesPerMiB = 1024.0 * 1024.0;

QString verdictText(FitVerdict verdict) {
    switch (verdict) {
    case FitVerdict::Fits:
        return GetModelsDialog::tr("fits");
    case FitVerdict::Tight:
        return GetModelsDialog::tr("tight");
    case FitVerdict::DoesNotFit:
        return GetModelsDialog::tr("does not fit");
    case FitVerdict::Unknown:
        break;
    }
    return GetModelsDialog::tr("unknown");
}

QString pairText(const KvPair& pair) {
    return pair.first == pair.second ? QString::fromLatin1(ggmlTypeName(pair.first))
                                     : QStringLiteral("%1/%2").arg(QLatin1String(ggmlTypeName(pair.first)),
                                                                   QLatin1String(ggmlTypeName(pair.second)));
}

QString etaText(double seconds) {
    if (seconds <= 0 || seconds > 7 * 24 * 3600) {
        return QStringLiteral("-");
    }
    const auto whole = static_cast<qint64>(seconds);
    return whole >= 3600 ? QStringLiteral("%1:%2:%3")
                               .arg(whole / 3600)
                               .arg(whole / 60 % 60, 2, 10, QLatin1Char('0'))
                               .arg(whole % 60, 2, 10, QLatin1Char('0'))
                         : QStringLiteral("%1:%2").arg(whole / 60).arg(whole % 60, 2, 10, QLatin1Char('0'));
}

} // namespace

GetModelsDialog::GetModelsDialog(HubClientOptions options, ServerSettings settings, Machine machine,
                                 std::uint64_t marginBytes, QWidget* parent)
    : QDialog(parent), m_options(std::move(options)), m_settings(std::move(settings)),
      m_machine(std::move(machine)), m_marginBytes(marginBytes),
      m_runner(std::make_unique<HubTaskRunner>(m_options)) {
    setObjectName(QStringLiteral("getModelsDialog"));
    setWindowTitle(tr("Get models from Hugging Face"));
    buildWidgets();
    setStatus(tr("Search for a GGUF model, then pick a repo to see which quant fits %1.")
                  .arg(QString::fromStdString(m_machine.name)));
}

GetModelsDialog::~GetModelsDialog() = default;

void GetModelsDialog::buildWidgets() {
    m_query = new QLineEdit(this);
    m_query->setObjectName(QStringLiteral("hubQuery"));
    m_query->setPlaceholderText(tr("Model name, e.g. Qwen3 8B"));
    m_query->setToolTip(tr("Searches Hugging Face for GGUF repos, most downloaded first"));
    m_searchButton = new QPushButton(tr("&Search"), this);
    m_searchButton->setObjectName(QStringLiteral("hubSearchButton"));
    m_searchButton->setDefault(true);
    connect(m_searchButton, &QPushButton::clicked, this, [this] { search(m_query->text()); });
    connect(m_query, &QLineEdit::returnPressed, this, [this] { search(m_query->text()); });
    auto* searchRow = new QHBoxLayout;
    searchRow->addWidget(m_query, 1);
    searchRow->addWidget(m_searchButton);

    m_results = new QTableWidget(0, 4, this);
    m_results->setObjectName(QStringLiteral("hubResults"));
    m_results->setHorizontalHeaderLabels({tr("Repo"), tr("Downloads"), tr("Parameters"), tr("Architecture")});
    m_results->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_results->setSelectionMode(QAbstractItemView::SingleSelection);
    m_results->verticalHeader()->hide();
    m_results->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_results->setToolTip(tr("Pick a repo to size each of its quants for this machine"));
    connect(m_results, &QTableWidget::itemSelectionChanged, this, [this] {
        const QList<QTableWidgetItem*> selected = m_results->selectedItems();
        if (!selected.isEmpty()) {
            showRepo(m_results->item(selected.front()->row(), 0)->text());
        }
    });

    m_quants = new QTableWidget(0, 0, this);
    m_quants->setObjectName(QStringLiteral("hubQuants"));
    m_quants->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_quants->setSelectionMode(QAbstractItemView::SingleSelection);
    m_quants->verticalHeader()->hide();
    m_quants->setToolTip(tr("Sized from each quant's GGUF header, read without downloading the model: "
                            "the same estimate as for a file on disk"));

    m_downloadButton = new QPushButton(tr("&Download"), this);
    m_downloadButton->setObjectName(QStringLiteral("hubDownloadButton"));
    m_downloadButton->setEnabled(false);
    m_downloadButton->setToolTip(
        tr("Downloads the selected quant (and its vision projector) into the Hugging "
           "Face cache, checked by sha256"));
    connect(m_downloadButton, &QPushButton::clicked, this, [this] {
        const QList<QTableWidgetItem*> selected = m_quants->selectedItems();
        download(selected.isEmpty() ? -1 : selected.front()->row());
    });
    m_cancelButton = new QPushButton(tr("&Cancel download"), this);
    m_cancelButton->setObjectName(QStringLiteral("hubCancelButton"));
    m_cancelButton->setEnabled(false);
    m_cancelButton->setToolTip(
        tr("Stops the download; what arrived is kept and the next download resumes it"));
    connect(m_cancelButton, &QPushButton::clicked, this, &GetModelsDialog::cancelDownload);
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("hubProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(true);
    m_progress->setFormat(QString());
    m_queueLabel = new QLabel(this);
    m_queueLabel->setObjectName(QStringLiteral("hubQueue"));
    auto* downloadRow = new QHBoxLayout;
    downloadRow->addWidget(m_downloadButton);
    downloadRow->addWidget(m_cancelButton);
    downloadRow->addWidget(m_progress, 1);
    downloadRow->addWidget(m_queueLabel);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("hubStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->addWidget(m_results);
    splitter->addWidget(m_quants);
    splitter->setStretchFactor(1, 2);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(searchRow);
    layout->addWidget(splitter, 1);
    layout->addLayout(downloadRow);
    layout->addWidget(m_status);
    setTabOrder(m_query, m_searchButton);
    setTabOrder(m_searchButton, m_results);
    setTabOrder(m_results, m_quants);
    setTabOrder(m_quants, m_downloadButton);
    setTabOrder(m_downloadButton, m_cancelButton);
    resize(900, 600);
}

void GetModelsDialog::setStatus(const QString& text) {
    m_status->setText(text);
}

void GetModelsDialog::search(const QString& query) {
    if (query.trimmed().isEmpty()) {
        return;
    }
    m_searchButton->setEnabled(false);
    setStatus(tr("Searching for \"%1\"...").arg(query.trimmed()));
    const std::string text = query.trimmed().toStdString();
    m_runner->run<Result<std::vector<HubModelSummary>>>(
        [text](HubClient& client) { return client.search(text, kSearchLimit); }, this,
        [this](Result<std::vector<HubModelSummary>> models) {
            m_searchButton->setEnabled(true);
            if (!models) {
                setStatus(tr("The search failed: %1").arg(QString::fromStdString(models.error().message)));
                emit searchFinished(false);
                return;
            }
            m_results->setRowCount(0);
            for (const HubModelSummary& model : *models) {
                const int row = m_results->rowCount();
                m_results->insertRow(row);
                m_results->setItem(row, 0, readOnlyCell(QString::fromStdString(model.id)));
                m_results->setItem(row, 1,
                                   readOnlyCell(QLocale().toString(static_cast<qulonglong>(model.downloads)),
                                                Qt::AlignRight | Qt::AlignVCenter));
                m_results->setItem(
                    row, 2,
                    readOnlyCell(model.parameters > 0
                                     ? QStringLiteral("%1B").arg(static_cast<double>(model.parameters) / 1e9,
                                                                 0, 'f', 1)
                                     : QStringLiteral("-"),
                                 Qt::AlignRight | Qt::AlignVCenter));
                m_results->setItem(row, 3,
                                   readOnlyCell(QString::fromStdString(model.architecture) +
                                                (model.gated ? tr(" (gated: needs HF_TOKEN)") : QString())));
            }
            setStatus(models->empty() ? tr("No GGUF repo matches.")
                                      : tr("%n repo(s) found.", "", int(models->size())));
            emit searchFinished(true);
        });
}

void GetModelsDialog::openRepo(const QString& repoId, const QString& quantTag) {
    m_query->setText(repoId);
    showRepo(repoId);
    m_wantedQuant = quantTag;
}

void GetModelsDialog::showRepo(const QString& repoId) {
    m_repoId = repoId;
    m_wantedQuant.clear();
    m_quants->setRowCount(0);
    m_downloadButton->setEnabled(false);
    setStatus(tr("Reading the quants' headers of %1 (no model data is downloaded)...").arg(repoId));
    const std::string repo = repoId.toStdString();
    const std::string headerCache = HubHeaderCache::defaultDirectory();
    m_runner->run<Result<RepoQuantSizing>>(
        [repo, headerCache](HubClient& client) {
            return sizeRepoQuants(client, HubHeaderCache(headerCache), repo);
        },
        this,
        [this, repoId](Result<RepoQuantSizing> sizing) {
            if (repoId != m_repoId) {
                return; // another repo was picked meanwhile
            }
            if (!sizing) {
                setStatus(tr("%1 could not be sized: %2")
                              .arg(repoId, QString::fromStdString(sizing.error().message)));
                emit repoSized(false);
                return;
            }
            m_commit = sizing->commit;
            const BenchmarkStore store;
            m_table =
                quantFitTable(sizing->candidates, m_settings, m_machine, PlacementOptions{m_marginBytes},
                              defaultKvPairsWith({m_settings.cacheTypeK, m_settings.cacheTypeV}),
                              [&](bool moe) { return store.efficiencyFor(m_machine, moe); });
            showQuants();
            emit repoSized(true);
        });
}

void GetModelsDialog::showQuants() {
    const std::vector<KvPair> pairs = defaultKvPairsWith({m_settings.cacheTypeK, m_settings.cacheTypeV});
    QStringList headers{tr("Quant"), tr("Download"),
                        tr("At -c %1").arg(m_table.rows.empty() ? 0 : m_table.rows.front().contextTokens)};
    for (const KvPair& pair : pairs) {
        headers << tr("Max -c, %1").arg(pairText(pair));
    }
    headers << tr("Tokens/s");
    m_quants->clear();
    m_quants->setColumnCount(static_cast<int>(headers.size()));
    m_quants->setHorizontalHeaderLabels(headers);
    m_quants->setRowCount(0);
    const Qt::Alignment right = Qt::AlignRight | Qt::AlignVCenter;
    for (std::size_t i = 0; i < m_table.rows.size(); ++i) {
        const QuantFitRow& row = m_table.rows[i];
        const int r = m_quants->rowCount();
        m_quants->insertRow(r);
        const bool recommended = m_table.recommended == i;
        QTableWidgetItem* label = readOnlyCell(QString::fromStdString(row.quant.label) +
                                               (recommended ? tr("  ★ recommended") : QString()));
        if (recommended) {
            QFont bold = label->font();
            bold.setBold(true);
            label->setFont(bold);
        }
        m_quants->setItem(r, 0, label);
        const std::uint64_t bytes =
            row.quant.modelBytes + (row.quant.projector ? row.quant.projector->size : 0);
        m_quants->setItem(
            r, 1,
            readOnlyCell(tr("%1 GiB").arg(static_cast<double>(bytes) / kBytesPerGiB, 0, 'f', 2), right));
        if (row.error) {
            QTableWidgetItem* error =
                readOnlyCell(tr("cannot load: %1").arg(QString::fromStdString(row.error->message)));
            error->setToolTip(QString::fromStdString(row.error->code));
            m_quants->setItem(r, 2, error);
            continue;
        }
        QTableWidgetItem* verdict = readOnlyCell(verdictText(row.verdict));
        verdict->setToolTip(
            tr("%1 MiB in all")
                .arg(static_cast<double>(row.estimate->totals.totalBytes()) / kBytesPerMiB, 0, 'f', 0));
        m_quants->setItem(r, 2, verdict);
        for (std::size_t p = 0; p < row.largestContext.size(); ++p) {
            const ContextFit& fit = row.largestContext[p];
            m_quants->setItem(r, static_cast<int>(3 + p),
                              readOnlyCell(fit.fits ? QString::number(fit.contextTokens) : tr("no"), right));
        }
        m_quants->setItem(r, static_cast<int>(3 + row.largestContext.size()),
                          readOnlyCell(row.speed ? QString::number(row.speed->decodeTpsExpected, 'f', 1)
                                                 : QStringLiteral("-"),
                                       right));
    }
    m_quants->resizeColumnsToContents();
    std::vector<RepoQuant> shown;
    for (const QuantFitRow& row : m_table.rows) {
        shown.push_back(row.quant);
    }
    const RepoQuant* wanted =
        m_wantedQuant.isNull() ? nullptr : quantForTag(shown, m_wantedQuant.toStdString());
    if (wanted != nullptr) {
        m_quants->selectRow(static_cast<int>(wanted - shown.data()));
    } else if (m_table.recommended) {
        m_quants->selectRow(static_cast<int>(*m_table.recommended));
    }
    m_downloadButton->setEnabled(!m_table.rows.empty());
    setStatus(m_table.recommended
                  ? tr("%1: %2 is the best quality that fits %3 at these settings.")
                        .arg(m_repoId, QString::fromStdString(m_table.rows[*m_table.recommended].quant.label),
                             QString::fromStdString(m_machine.name))
                  : tr("%1: no quant fits %2 at these settings; lower the context or the K/V cache type.")
                        .arg(m_repoId, QString::fromStdString(m_machine.name)));
}

void GetModelsDialog::download(int row) {
    if (row < 0 && m_table.recommended) {
        row = static_cast<int>(*m_table.recommended);
    }
    if (row < 0 || static_cast<std::size_t>(row) >= m_table.rows.size()) {
        return;
    }
    m_queue.push_back({m_repoId, m_commit, m_table.rows[static_cast<std::size_t>(row)].quant});
    m_queueLabel->setText(m_queue.size() > 1 || m_downloading ? tr("%n queued", "", int(m_queue.size()))
                                                              : QString());
    if (!m_downloading) {
        startNextDownload();
    }
}

void GetModelsDialog::cancelDownload() {
    if (m_downloading) {
        m_runner->cancel();
    }
}

void GetModelsDialog::startNextDownload() {
    if (m_queue.empty()) {
        m_downloading = false;
        m_cancelButton->setEnabled(false);
        m_queueLabel->clear();
        return;
    }
    PendingDownload next = std::move(m_queue.front());
    m_queue.pop_front();
    m_queueLabel->setText(m_queue.empty() ? QString() : tr("%n queued", "", int(m_queue.size())));
    m_downloading = true;
    m_cancelButton->setEnabled(true);
    m_progress->setValue(0);
    const QString name = next.repoId + QLatin1Char(':') + QString::fromStdString(next.quant.label);
    m_progress->setFormat(name);
    setStatus(tr("Downloading %1...").arg(name));
    const HubCacheLayout layout{
        huggingFaceHubCacheDirectory(processEnvironment(), homeDirectory(), currentOsKind()),
        next.repoId.toStdString()};
    QPointer<GetModelsDialog> self(this);
    auto progress = [self, name](const HubDownloadProgress& report) {
        QMetaObject::invokeMethod(
            self.data(),
            [self, name, report] {
                if (!self || report.totalBytes == 0) {
                    return;
                }
                const double done = static_cast<double>(report.totalDone);
                const double total = static_cast<double>(report.totalBytes);
                self->m_progress->setValue(static_cast<int>(1000 * done / total));
                self->m_progress->setFormat(
                    GetModelsDialog::tr("%1: %2 of %3 GiB, %4 MiB/s, %5 left")
                        .arg(name)
                        .arg(done / kBytesPerGiB, 0, 'f', 2)
                        .arg(total / kBytesPerGiB, 0, 'f', 2)
                        .arg(report.bytesPerSecond / kBytesPerMiB, 0, 'f', 1)
                        .arg(
                            etaText(report.bytesPerSecond > 0 ? (total - done) / report.bytesPerSecond : 0)));
            },
            Qt::QueuedConnection);
    };
    m_runner->run<Result<PulledQuant>>(
        [layout, next, progress](HubClient& client) {
            int lastPermille = -1;
            return pullQuant(
                client, layout, next.commit, next.quant, true, [&](const HubDownloadProgress& report) {
                    const int permille = report.totalBytes > 0
                                             ? static_cast<int>(1000 * report.totalDone / report.totalBytes)
                                             : 0;
                    if (permille != lastPermille) { // at most a thousand updates a download
                        lastPermille = permille;
                        progress(report);
                    }
                });
        },
        this,
        [this, name](Result<PulledQuant> pulled) {
            if (!pulled) {
                const QString message =
                    pulled.error().code == "hub.cancelled"
                        ? tr("%1: cancelled; the part downloaded is kept and resumes next time").arg(name)
                        : tr("%1 failed: %2").arg(name, QString::fromStdString(pulled.error().message));
                setStatus(message);
                emit downloadFailed(message);
            } else {
                m_progress->setValue(1000);
                setStatus(tr("%1 is downloaded and verified: %2")
                              .arg(name, QString::fromStdString(pulled->modelPaths.front())));
                emit modelDownloaded(QString::fromStdString(pulled->modelPaths.front()),
                                     pulled->projectorPath ? QString::fromStdString(*pulled->projectorPath)
                                                           : QString());
            }
            startNextDownload();
        });
}

} // namespace llamafit
