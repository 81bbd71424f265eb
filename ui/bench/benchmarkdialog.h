#pragma once
// BenchmarkDialog: llama.cpp's llama-bench on the session's model with the planned launch's
// settings (-ngl, -fa, -ctk/-ctv, -b/-ub, ...; the same argv `llamafit-cli bench` runs),
// prompt processing and generation at the depths the user lists, with progress and cancel.
// When it finishes, each measured rate is shown next to the speed model's bound and expected
// rate (table and chart), and the run is stored for this machine, model file and llama.cpp
// build (BenchmarkStore), from where the advice panel learns the machine's efficiency.
// Earlier runs of the model on this machine can be shown again from the history list.
// Non-modal: the user may keep planning while it runs; the plan of a running benchmark is
// fixed at its start. Closing the dialog cancels a running benchmark (no llama-bench outlives
// it).
// Used by MainWindow (Server > Benchmark...). Owns: its widgets, the BenchmarkRun and the plan
// of the run in progress. Reads the session (model, settings, machine, bandwidth).
// Thread: GUI. Units: tokens per second.
//
// Object names: benchmarkDialog, benchDepthsEdit, benchPromptSpin, benchGenerationSpin,
// benchRepetitionsSpin, benchThreadsSpin, benchProgramEdit, benchCommandLabel,
// benchRunButton, benchCancelButton, benchProgressBar, benchStatusLabel, benchHistoryCombo,
// benchResultsTable, benchSourceLabel, benchChart.

#include "core/server/benchrecord.h"
#include "core/system/benchmarkrun.h"
#include "core/system/benchplan.h"

#include <QDialog>

#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace llamafit {

class BenchmarkChart;
class SizingSession;

class BenchmarkDialog : public QDialog {
    Q_OBJECT
  public:
    // `serverProgram`: the launch panel's llama-server; llama-bench is looked for next to it
    // (defaultLlamaBenchProgram). `storeFolder`: BenchmarkStore's folder (empty = its default).
    BenchmarkDialog(SizingSession* session, const QString& serverProgram, const QString& storeFolder = {},
                    QWidget* parent = nullptr);
    ~BenchmarkDialog() override;

    BenchmarkRun& run() { return m_run; }
    BenchmarkChart* chart() const { return m_chart; }
    // The run shown in the table and chart; nullopt before any.
    const std::optional<BenchRecord>& shownRecord() const { return m_shown; }
    // The runs of the session's model on its machine in the history list, oldest first.
    const std::vector<BenchRecord>& history() const { return m_history; }

    // The request the Run button would start now (model, settings, the fields), or why not.
    Result<BenchRequest> currentRequest() const;
    // Starts a benchmark of currentRequest() (the Run button); false when it could not start
    // (the reason is in the status line).
    bool startBenchmark();

  signals:
    // A finished run was stored and is shown, or a history entry was chosen.
    void recordShown();

  protected:
    void closeEvent(QCloseEvent* event) override;

  private:
    void refreshCommand();
    void reloadHistory();
    void showRecord(const BenchRecord& record);
    void onStateChanged(BenchmarkRun::State state);
    void onProgressed(std::uint32_t test, std::uint32_t total, const QString& stage);
    void setStatus(const QString& text, bool problem);

    SizingSession* m_session;
    QString m_storeFolder;
    BenchmarkRun m_run;
    std::optional<BenchPlan> m_plan; // of the run in progress
    std::optional<BenchRecord> m_shown;
    std::vector<BenchRecord> m_history;

    QLineEdit* m_depthsEdit;
    QSpinBox* m_promptSpin;
    QSpinBox* m_generationSpin;
    QSpinBox* m_repetitionsSpin;
    QSpinBox* m_threadsSpin;
    QLineEdit* m_programEdit;
    QLabel* m_commandLabel;
    QPushButton* m_runButton;
    QPushButton* m_cancelButton;
    QProgressBar* m_progressBar;
    QLabel* m_statusLabel;
    QComboBox* m_historyCombo;
    QTableWidget* m_table;
    QLabel* m_sourceLabel;
    BenchmarkChart* m_chart;
};

} // namespace llamafit
