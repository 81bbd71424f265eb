#pragma once
// EnginesDialog: "Engines" -- the llama-server builds on this machine (core/system/enginediscovery.h:
// where each is, its build, the devices it would use, or why it does not run), the one to launch
// with, and, when none fits, llama.cpp's official release build for this machine fetched into
// LlamaFit's engines folder, checked against its published sha256 first
// (core/system/enginefetch.h). Discovery and the fetch run on the HubTaskRunner's thread.
// Owns: its widgets and runner. Thread: the GUI thread.

#include "core/server/llamarelease.h"
#include "core/system/enginediscovery.h"

#include <QDialog>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace llamafit {

class HubTaskRunner;

class EnginesDialog : public QDialog {
    Q_OBJECT
  public:
    // `current`: the build the launch panel uses now (selected when listed). `preferred`: the
    // backend offered for the fetch (the machine's GPU's, else the CPU).
    EnginesDialog(const QString& current, EngineBackend preferred, QWidget* parent = nullptr);
    ~EnginesDialog() override;

    const std::vector<InstalledEngine>& engines() const { return m_engines; }

  public slots:
    void refresh();
    void fetch();

  signals:
    void refreshed();
    // "Use this build", or a fetch that finished: the llama-server to launch with.
    void engineChosen(const QString& program);
    void fetchFailed(const QString& message);

  private:
    void showEngines(const QString& select);

    QString m_current;
    std::unique_ptr<HubTaskRunner> m_runner;
    std::vector<InstalledEngine> m_engines;

    QTableWidget* m_table = nullptr;
    QPushButton* m_useButton = nullptr;
    QComboBox* m_backend = nullptr;
    QPushButton* m_fetchButton = nullptr;
    QProgressBar* m_progress = nullptr;
    QLabel* m_status = nullptr;
};

// The backend to offer for a machine's first GPU (Vulkan for an AMD/Intel/unknown GPU, CUDA for
// NVIDIA, Metal on Apple silicon), the CPU without one.
EngineBackend preferredEngineBackend(Backend gpuBackend, bool hasGpu, OsKind os);

} // namespace llamafit
