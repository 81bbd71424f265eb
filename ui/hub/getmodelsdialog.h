#pragma once
// GetModelsDialog: "Get models" -- find a GGUF repo on Hugging Face, see which of its quants fits
// this machine at the settings being planned (verdict at -c, the largest -c per K/V pair, the
// expected decode speed, the recommended quant) before anything is downloaded, and download one
// into the shared Hugging Face cache, where llama-server -hf finds it too. Downloads queue; each
// shows progress, speed and time left, and can be cancelled (the partial file resumes later).
// The sizing is core/hub/quantfit.h over headers read by Range (core/system/hubquants.h); the
// HTTP runs on the HubTaskRunner's thread.
// Owns: its widgets and runner. Thread: the GUI thread.

#include "core/hub/quantfit.h"
#include "core/machine/memorypools.h"
#include "core/sizing/serversettings.h"
#include "core/system/hubclient.h"
#include "core/system/hubquants.h"

#include <QDialog>

#include <deque>
#include <memory>
#include <optional>
#include <vector>

class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace llamafit {

class HubTaskRunner;

class GetModelsDialog : public QDialog {
    Q_OBJECT
  public:
    // `settings`, `machine` and `marginBytes`: what the main window plans, which the quants are
    // sized for. `options`: the Hub (hubClientOptionsFromEnvironment() in the app).
    GetModelsDialog(HubClientOptions options, ServerSettings settings, Machine machine,
                    std::uint64_t marginBytes, QWidget* parent = nullptr);
    ~GetModelsDialog() override;

    // What the table shows; empty before a repo was sized.
    const QuantFitTable& fitTable() const { return m_table; }

  public slots:
    void search(const QString& query);
    void showRepo(const QString& repoId);
    // Sizes `repoId` at once (a built-in card's source) and selects the quant `quantTag` names
    // (the recommended one when it names none of them).
    void openRepo(const QString& repoId, const QString& quantTag);
    // Queues the download of row `row` of the quant table (the recommended one when -1).
    void download(int row = -1);
    void cancelDownload();

  signals:
    void searchFinished(bool ok);
    void repoSized(bool ok);
    // A download finished and verified: the model's -m path and its projector's (or empty).
    void modelDownloaded(const QString& modelPath, const QString& projectorPath);
    void downloadFailed(const QString& message);

  private:
    struct PendingDownload {
        QString repoId;
        std::string commit;
        RepoQuant quant;
    };

    void buildWidgets();
    void showQuants();
    void startNextDownload();
    void setStatus(const QString& text);

    HubClientOptions m_options;
    ServerSettings m_settings;
    Machine m_machine;
    std::uint64_t m_marginBytes = 0;
    std::unique_ptr<HubTaskRunner> m_runner;

    QString m_repoId;
    QString m_wantedQuant; // openRepo's tag: selected instead of the recommendation
    std::string m_commit;
    QuantFitTable m_table;
    std::deque<PendingDownload> m_queue;
    bool m_downloading = false;

    QLineEdit* m_query = nullptr;
    QPushButton* m_searchButton = nullptr;
    QTableWidget* m_results = nullptr;
    QTableWidget* m_quants = nullptr;
    QPushButton* m_downloadButton = nullptr;
    QPushButton* m_cancelButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
    QLabel* m_queueLabel = nullptr;
};

} // namespace llamafit
