#pragma once
// ModelPickerPanel: the model picker -- a filterable, sortable table of the built-in model
// cards (always listed, first) and the GGUF models found under the library roots (the default
// roots given at construction plus the folders the user adds), scanned in the background by a
// LibraryScanner with a progress bar and Cancel. Choosing a row (double click, Enter, or
// moving the selection with mouse or keys) emits modelChosen(path or card id); MainWindow
// hands that to loadModel() and the SizingSession. A file with a NextN (MTP) block carries the
// badge "MTP", and its row's context menu offers chooseWithMtpAction: modelChosenWithMtp, the
// model with --spec-type draft-mtp. A model with a vision projector beside it (the library's
// "OK, with vision projector") is offered chooseWithVisionAction: modelChosenWithProjector. The panel shows;
// it does not load models. Owns: its widgets, the table model, the scanner. Thread: GUI thread.
//
// Widgets (objectName): modelFilterEdit, modelTable, addFolderButton, removeFolderButton
// (a menu with one removeFolderAction per user folder), rescanButton, scanProgress,
// scanCancelButton, scanStatusLabel.

#include "core/library/libraryentry.h"
#include "core/library/modellocations.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <vector>

class QAction;
class QLabel;
class QLineEdit;
class QMenu;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;

namespace llamafit {

class LibraryScanner;
class ModelLibraryModel;

class ModelPickerPanel : public QWidget {
    Q_OBJECT
  public:
    // `roots`: the default library roots (defaultLibraryRoots() in the app, temporary folders
    // in tests); the user's folders are added with setUserFolders(). Does not start a scan.
    explicit ModelPickerPanel(LibraryRoots roots, QWidget* parent = nullptr);
    ~ModelPickerPanel() override;

    // The folders the user added (restored from settings). Emits nothing; call startScan().
    void setUserFolders(const QStringList& folders);
    QStringList userFolders() const;
    // Scans the default roots and the user folders again (cancelling a running scan).
    void startScan();
    bool isScanning() const;
    // Selects the row of a path (any part of a split model) or card id without emitting
    // modelChosen; a model not listed yet is selected when the scan finds it.
    void selectModel(const QString& pathOrCardId);
    // The path or card id of the selected row; empty when none.
    QString selectedModel() const;

    ModelLibraryModel* libraryModel() const { return m_model; }

  signals:
    void modelChosen(const QString& pathOrCardId);
    // The row's "Choose with MTP drafting" (chooseWithMtpAction; only for files with a NextN block).
    void modelChosenWithMtp(const QString& pathOrCardId);
    // The row's "Choose with vision" (chooseWithVisionAction; only for a model with a projector
    // beside it): the model with --mmproj `projectorPath`.
    void modelChosenWithProjector(const QString& pathOrCardId, const QString& projectorPath);
    void userFoldersChanged(const QStringList& folders);
    void scanFinished(bool cancelled);

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void buildWidgets();
    void addFolder();
    void removeFolder(const QString& folder);
    void rebuildRemoveMenu();
    void onProgress(quint64 filesDone, quint64 filesFound, const QString& currentPath);
    void onEntries(const std::vector<LibraryEntry>& batch);
    void onScanFinished(bool cancelled);
    void setScanningVisible(bool scanning);
    void chooseProxyRow(const QModelIndex& proxyIndex);
    bool trySelect(const QString& pathOrCardId);

    LibraryRoots m_defaultRoots;
    QStringList m_userFolders;
    QString m_pendingSelection;
    bool m_programmaticChange = false; // selection changes made by the panel, not the user

    ModelLibraryModel* m_model = nullptr;
    QSortFilterProxyModel* m_proxy = nullptr;
    LibraryScanner* m_scanner = nullptr;
    QLineEdit* m_filterEdit = nullptr;
    QTableView* m_table = nullptr;
    QPushButton* m_addButton = nullptr;
    QToolButton* m_removeButton = nullptr;
    QMenu* m_removeMenu = nullptr;
    QPushButton* m_rescanButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QLabel* m_statusLabel = nullptr;
    QAction* m_chooseWithMtpAction = nullptr;
    QAction* m_chooseWithVisionAction = nullptr;
};

} // namespace llamafit
