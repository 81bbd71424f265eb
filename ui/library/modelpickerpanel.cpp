#include "ui/library/modelpickerpanel.h"

#include "core/model/modelspec.h"
#include "core/system/libraryscanner.h"
#include "ui/library/modellibrarymodel.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProgressBar>
#include <QPushButton>
#include <QScopedValueRollback>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <climits>
#include <initializer_list>

namespace llamafit {

ModelPickerPanel::ModelPickerPanel(LibraryRoots roots, QWidget* parent)
    : QWidget(parent), m_defaultRoots(std::move(roots)), m_model(new ModelLibraryModel(this)),
      m_proxy(new QSortFilterProxyModel(this)), m_scanner(new LibraryScanner(this)) {
    std::vector<LibraryEntry> cards;
    for (const auto& card : builtinModelCards()) {
        cards.push_back(libraryEntryForCard(card));
    }
    m_model->setCards(std::move(cards));
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(ModelLibraryModel::SortRole);
    m_proxy->setFilterKeyColumn(-1); // every text column
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    buildWidgets();

    connect(m_scanner, &LibraryScanner::progress, this, &ModelPickerPanel::onProgress);
    connect(m_scanner, &LibraryScanner::entriesFound, this, &ModelPickerPanel::onEntries);
    connect(m_scanner, &LibraryScanner::finished, this, &ModelPickerPanel::onScanFinished);
}

ModelPickerPanel::~ModelPickerPanel() = default;

void ModelPickerPanel::buildWidgets() {
    m_filterEdit = new QLineEdit(this);
    m_filterEdit->setObjectName(QStringLiteral("modelFilterEdit"));
    m_filterEdit->setPlaceholderText(tr("Filter models (name, architecture, quantisation, badges, folder)"));
    m_filterEdit->setToolTip(
        tr("Shows only the models whose columns contain this text; Down moves into the list"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->installEventFilter(this);
    connect(m_filterEdit, &QLineEdit::textChanged, this, [this](const QString& text) {
        const QScopedValueRollback guard(m_programmaticChange, true);
        m_proxy->setFilterFixedString(text);
    });

    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("modelTable"));
    m_table->setToolTip(
        tr("The model passed to llama-server as -m / --model; double click or Enter chooses it"));
    m_table->setModel(m_proxy);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->setWordWrap(false);
    m_table->verticalHeader()->hide();
    // The name takes the room left; the other columns are as wide as their contents.
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_table->setColumnWidth(ModelLibraryModel::Name, 280);
    // No sort column at first: the built-in cards stay on top in list order.
    m_table->horizontalHeader()->setSortIndicator(-1, Qt::AscendingOrder);
    m_table->setSortingEnabled(true);
    connect(m_table, &QAbstractItemView::activated, this, &ModelPickerPanel::chooseProxyRow);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                m_chooseWithMtpAction->setEnabled(current.data(ModelLibraryModel::HasMtpRole).toBool());
                const QString projector = current.data(ModelLibraryModel::ProjectorPathRole).toString();
                m_chooseWithVisionAction->setEnabled(!projector.isEmpty());
                m_chooseWithVisionAction->setToolTip(
                    projector.isEmpty() ? tr("No vision projector (mmproj) was found with this model")
                                        : tr("Loads %1 with --mmproj: its weights and its image warm-up "
                                             "buffer join the estimate")
                                              .arg(QDir::toNativeSeparators(projector)));
                if (!m_programmaticChange && current.isValid()) {
                    chooseProxyRow(current);
                }
            });
    // The row's menu: a file with a NextN block can be chosen with MTP drafting on.
    m_chooseWithMtpAction = new QAction(tr("Choose with MTP drafting (--spec-type draft-mtp)"), m_table);
    m_chooseWithMtpAction->setObjectName(QStringLiteral("chooseWithMtpAction"));
    m_chooseWithMtpAction->setToolTip(
        tr("The model drafts tokens with its own NextN (MTP) block: llama-server "
           "loads the block and a second, draft context"));
    m_chooseWithMtpAction->setEnabled(false);
    connect(m_chooseWithMtpAction, &QAction::triggered, this, [this] {
        const QString chosen = selectedModel();
        if (!chosen.isEmpty()) {
            emit modelChosenWithMtp(chosen);
        }
    });
    m_table->addAction(m_chooseWithMtpAction);
    // A model with a projector beside it can be chosen with vision: --mmproj FILE.
    m_chooseWithVisionAction = new QAction(tr("Choose with vision (--mmproj)"), m_table);
    m_chooseWithVisionAction->setObjectName(QStringLiteral("chooseWithVisionAction"));
    m_chooseWithVisionAction->setEnabled(false);
    connect(m_chooseWithVisionAction, &QAction::triggered, this, [this] {
        const QString chosen = selectedModel();
        const QString projector =
            m_table->currentIndex().data(ModelLibraryModel::ProjectorPathRole).toString();
        if (!chosen.isEmpty() && !projector.isEmpty()) {
            emit modelChosenWithProjector(chosen, projector);
        }
    });
    m_table->addAction(m_chooseWithVisionAction);
    m_table->setContextMenuPolicy(Qt::ActionsContextMenu);

    m_addButton = new QPushButton(tr("Add folder..."), this);
    m_addButton->setObjectName(QStringLiteral("addFolderButton"));
    m_addButton->setToolTip(tr("Adds a folder of GGUF files to the library and scans it"));
    connect(m_addButton, &QPushButton::clicked, this, &ModelPickerPanel::addFolder);

    m_removeButton = new QToolButton(this);
    m_removeButton->setObjectName(QStringLiteral("removeFolderButton"));
    m_removeButton->setText(tr("Remove folder"));
    m_removeButton->setToolTip(tr("Removes one of the folders you added from the library"));
    m_removeButton->setPopupMode(QToolButton::InstantPopup);
    m_removeMenu = new QMenu(m_removeButton);
    m_removeMenu->setObjectName(QStringLiteral("removeFolderMenu"));
    m_removeButton->setMenu(m_removeMenu);

    m_rescanButton = new QPushButton(tr("Rescan"), this);
    m_rescanButton->setObjectName(QStringLiteral("rescanButton"));
    m_rescanButton->setToolTip(
        tr("Scans the Hugging Face, llama.cpp, LM Studio and Ollama folders and yours again"));
    connect(m_rescanButton, &QPushButton::clicked, this, &ModelPickerPanel::startScan);

    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("scanProgress"));
    m_progress->setToolTip(tr("GGUF files read so far, of those found"));
    m_progress->setFormat(tr("%v of %m files"));

    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setObjectName(QStringLiteral("scanCancelButton"));
    m_cancelButton->setToolTip(tr("Stops the scan; the models found so far stay listed"));
    connect(m_cancelButton, &QPushButton::clicked, m_scanner, &LibraryScanner::cancel);

    m_statusLabel = new QLabel(this);
    m_statusLabel->setObjectName(QStringLiteral("scanStatusLabel"));
    m_statusLabel->setToolTip(tr("What the last library scan found"));
    m_statusLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);

    // The buttons may shrink below their text's width: the row must not set the dock's
    // minimum width (the charts need the room more).
    for (QWidget* button : std::initializer_list<QWidget*>{m_addButton, m_removeButton, m_rescanButton}) {
        button->setMinimumWidth(48);
    }
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_addButton);
    buttons->addWidget(m_removeButton);
    buttons->addWidget(m_rescanButton);
    buttons->addWidget(m_progress, 1);
    buttons->addWidget(m_cancelButton);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_filterEdit);
    layout->addWidget(m_table, 1);
    layout->addLayout(buttons);
    layout->addWidget(m_statusLabel);

    rebuildRemoveMenu();
    setScanningVisible(false);
    m_statusLabel->setText(tr("Built-in model cards: %1. No folder scanned yet.").arg(m_model->cardCount()));
}

void ModelPickerPanel::setUserFolders(const QStringList& folders) {
    m_userFolders = folders;
    m_userFolders.removeDuplicates();
    rebuildRemoveMenu();
}

QStringList ModelPickerPanel::userFolders() const {
    return m_userFolders;
}

void ModelPickerPanel::startScan() {
    LibraryRoots roots = m_defaultRoots;
    for (const auto& folder : m_userFolders) {
        roots.push_back({folder.toStdString(), LibraryRootKind::UserFolder,
                         std::string(libraryRootKindLabel(LibraryRootKind::UserFolder))});
    }
    const QString keep = selectedModel();
    {
        const QScopedValueRollback guard(m_programmaticChange, true);
        m_model->clearScanned();
    }
    if (!keep.isEmpty() && !trySelect(keep)) {
        m_pendingSelection = keep;
    }
    m_progress->setRange(0, 0); // busy until the walk has counted the files
    setScanningVisible(true);
    m_statusLabel->setText(tr("Scanning folders: %1").arg(roots.size()));
    m_scanner->start(std::move(roots));
}

bool ModelPickerPanel::isScanning() const {
    return m_scanner->isRunning();
}

void ModelPickerPanel::selectModel(const QString& pathOrCardId) {
    if (!trySelect(pathOrCardId)) {
        m_pendingSelection = pathOrCardId;
    }
}

QString ModelPickerPanel::selectedModel() const {
    const QModelIndex current = m_table->selectionModel()->currentIndex();
    return current.isValid() ? current.data(ModelLibraryModel::PathRole).toString() : QString();
}

bool ModelPickerPanel::trySelect(const QString& pathOrCardId) {
    const int row = m_model->rowOf(pathOrCardId);
    if (row < 0) {
        return false;
    }
    const QModelIndex proxyIndex = m_proxy->mapFromSource(m_model->index(row, ModelLibraryModel::Name));
    if (proxyIndex.isValid()) {
        const QScopedValueRollback guard(m_programmaticChange, true);
        m_table->selectionModel()->setCurrentIndex(proxyIndex, QItemSelectionModel::ClearAndSelect |
                                                                   QItemSelectionModel::Rows);
        m_table->scrollTo(proxyIndex);
    }
    m_pendingSelection.clear();
    return true;
}

void ModelPickerPanel::chooseProxyRow(const QModelIndex& proxyIndex) {
    if (proxyIndex.isValid()) {
        emit modelChosen(proxyIndex.data(ModelLibraryModel::PathRole).toString());
    }
}

bool ModelPickerPanel::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_filterEdit && event->type() == QEvent::KeyPress &&
        static_cast<QKeyEvent*>(event)->key() == Qt::Key_Down && m_proxy->rowCount() > 0) {
        m_table->setFocus(Qt::ShortcutFocusReason);
        if (!m_table->selectionModel()->currentIndex().isValid()) {
            // The user moved into the list: choosing its first row is their selection.
            m_table->selectionModel()->setCurrentIndex(m_proxy->index(0, ModelLibraryModel::Name),
                                                       QItemSelectionModel::ClearAndSelect |
                                                           QItemSelectionModel::Rows);
        }
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void ModelPickerPanel::addFolder() {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Add a folder of GGUF models"));
    if (folder.isEmpty() || m_userFolders.contains(folder)) {
        return;
    }
    m_userFolders << folder;
    rebuildRemoveMenu();
    emit userFoldersChanged(m_userFolders);
    startScan();
}

void ModelPickerPanel::removeFolder(const QString& folder) {
    if (m_userFolders.removeAll(folder) == 0) {
        return;
    }
    rebuildRemoveMenu();
    emit userFoldersChanged(m_userFolders);
    startScan();
}

void ModelPickerPanel::rebuildRemoveMenu() {
    m_removeMenu->clear();
    for (const auto& folder : m_userFolders) {
        QAction* action = m_removeMenu->addAction(folder);
        action->setObjectName(QStringLiteral("removeFolderAction"));
        action->setData(folder);
        action->setToolTip(tr("Stop listing the models in %1").arg(folder));
        connect(action, &QAction::triggered, this, [this, folder] { removeFolder(folder); });
    }
    m_removeButton->setEnabled(!m_userFolders.isEmpty());
}

void ModelPickerPanel::onProgress(quint64 filesDone, quint64 filesFound, const QString& currentPath) {
    if (filesDone > 0 || filesFound > 0) {
        m_progress->setRange(0, static_cast<int>(std::min<quint64>(filesFound, INT_MAX)));
        m_progress->setValue(static_cast<int>(std::min<quint64>(filesDone, INT_MAX)));
    }
    m_statusLabel->setText(tr("Scanning: %1").arg(currentPath));
}

void ModelPickerPanel::onEntries(const std::vector<LibraryEntry>& batch) {
    {
        const QScopedValueRollback guard(m_programmaticChange, true);
        m_model->addEntries(batch);
    }
    if (!m_pendingSelection.isEmpty()) {
        trySelect(m_pendingSelection);
    }
}

void ModelPickerPanel::onScanFinished(bool cancelled) {
    setScanningVisible(false);
    int found = 0;
    int unreadable = 0;
    for (int row = m_model->cardCount(); row < m_model->rowCount(); ++row) {
        ++found;
        unreadable += m_model->entry(row).error ? 1 : 0;
    }
    m_statusLabel->setText(
        cancelled ? tr("Scan cancelled. Models found before it stopped: %1, unreadable: %2")
                        .arg(found)
                        .arg(unreadable)
                  : tr("Scan finished. Models found: %1, unreadable: %2").arg(found).arg(unreadable));
    emit scanFinished(cancelled);
}

void ModelPickerPanel::setScanningVisible(bool scanning) {
    m_progress->setVisible(scanning);
    m_cancelButton->setVisible(scanning);
}

} // namespace llamafit
