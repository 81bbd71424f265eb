#pragma once
// LiveView ("liveView"): what the user watches while llama-server runs (issue 4, item 7):
// memory over time against the prediction and the pool limits, tokens/s (total and per
// slot), each slot's context fill, predicted versus actual memory per component, and the
// server log with level filter and search. Above the charts (liveSpeedLabel, issue 15 item 3):
// the measured decode rate next to the expected one and the effective bandwidth (tokens/s x
// bytes read per token at the slots' fill) next to the machine's figure (core/server/livespeed.h):
// the generating slots' rate ("now") while a request runs, the run's average from the counters
// between requests (a burst shorter than a poll still shows), "—" before the first token.
// Below it (liveLearningLabel, issue 15 item 2): how much of the run the speed model can learn
// from, and at Stopped whether it was stored as one of the machine's live runs
// (core/server/liverunrecord.h), from where estimates learn the machine's efficiency.
//
// Follows one ServerProcess through its states:
//   Starting  copies the session's estimate, model, machine, bandwidth and speed efficiency
//             (the sliders may move while the server runs; the view keeps comparing against
//             what was launched), clears the previous run and starts the refresh timer (the
//             log shows during loading)
//   Ready     compares the prediction with the allocation log, creates a ServerProbe
//             (/slots, /metrics) and a DeviceSampler (RSS, host memory, device readers from
//             the factory) and starts them
//   Stopping / Stopped / Failed
//             stops polling; the last data stays visible; at Stopped a run long enough to
//             learn from is stored in the benchmark store
// Streams in, throttled paint out: samples only append points and set a dirty flag; one
// 250 ms timer refreshes the dirty parts, and does nothing while the view is hidden (the
// hidden time's samples are drawn at the next show). Log lines are batched per tick.
//
// Owns: its panels, the probe and the sampler of the current run, the refresh timer.
// Does not own: the session or the process (both must outlive it).
// Thread: GUI thread. Units: seconds on the charts' x axes, bytes, tokens/s.

#include "core/machine/memorypools.h"
#include "core/machine/speedefficiency.h"
#include "core/model/modelinfo.h"
#include "core/server/liverunrecord.h"
#include "core/server/livespeed.h"
#include "core/server/throughput.h"
#include "core/sizing/memoryestimate.h"
#include "core/system/devicememoryreader.h"
#include "core/system/serverprocess.h"
#include "ui/sessionspeed.h"

#include <QDateTime>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

class QLabel;

namespace llamafit {

class ComparisonTable;
struct DeviceSample;
class DeviceSampler;
class LogPanel;
class MemoryTimeChart;
class ServerProbe;
class SizingSession;
class SlotFillTable;
class ThroughputChart;

class LiveView : public QWidget {
    Q_OBJECT
  public:
    using DeviceReaderFactory = std::function<std::vector<std::unique_ptr<DeviceMemoryReader>>()>;
    static constexpr std::chrono::milliseconds kRefreshInterval{250};

    LiveView(SizingSession* session, ServerProcess* process, QWidget* parent = nullptr);
    ~LiveView() override;

    // Makes the device-memory readers of the next run's sampler (called at Ready, on the GUI
    // thread). Default: none, so the memory chart shows the host and the server's RSS only.
    void setDeviceReaderFactory(DeviceReaderFactory factory) { m_readerFactory = std::move(factory); }
    // The charts' sliding window (default 5 minutes); takes effect at once.
    void setWindow(std::chrono::seconds window);
    std::chrono::seconds window() const;
    // How often the probe and the sampler sample (default 500 ms); from the next Ready.
    void setSampleInterval(std::chrono::milliseconds interval) { m_sampleInterval = interval; }

    // The panels, for tests and for the main window's layout choices.
    MemoryTimeChart* memoryChart() const { return m_memoryChart; }
    ThroughputChart* throughputChart() const { return m_throughputChart; }
    SlotFillTable* slotTable() const { return m_slotTable; }
    ComparisonTable* comparisonTable() const { return m_comparisonTable; }
    LogPanel* logPanel() const { return m_logPanel; }
    // The current run's monitors; null before the first Ready.
    ServerProbe* probe() const { return m_probe.get(); }
    DeviceSampler* sampler() const { return m_sampler.get(); }
    // The estimate copied at Starting; nullopt when the session had none (refused settings).
    const std::optional<MemoryEstimate>& prediction() const { return m_prediction; }
    // The latest live speed comparison; nullopt before the first generated token or without a
    // prediction.
    const std::optional<LiveSpeed>& liveSpeed() const { return m_liveSpeed; }
    // Where finished runs are stored for learning, and the launch's efficiency read (default:
    // BenchmarkStore's own folder, shared with llamafit-cli).
    void setBenchmarkFolder(const QString& folder);

    // Test accessors.
    int memorySampleCount() const;     // RSS points in the memory chart's window
    int throughputSampleCount() const; // total tokens/s points in the window
    double latestTotalTokensPerSecond() const;
    double peakTotalTokensPerSecond() const;            // highest total in the window
    int refreshCount() const { return m_refreshCount; } // refresh passes that repainted something
    bool isPolling() const { return m_polling; }        // probe and sampler running

  signals:
    // A finished run was stored as one of the machine's live runs (the efficiency may change).
    void runLearned();

  protected:
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

    // The state in words for the label above the charts (translated; ServerProcess::stateName
    // is the untranslated name logs use).
    static QString stateName(ServerProcess::State state);

  private:
    void onStateChanged(ServerProcess::State state);
    void beginRun();
    void startPolling();
    void stopPolling();
    void compare();
    void showLearning();
    void learnFromRun();
    void onProbeSampled();
    void showRunTotals(const RunTotals& totals);
    void showLiveSpeed(const RunTotals& totals);
    void onDeviceSampled(const DeviceSample& sample);
    void refresh();
    double secondsSinceReady(std::chrono::steady_clock::time_point time) const;

    SizingSession* m_session = nullptr;
    ServerProcess* m_process = nullptr;
    DeviceReaderFactory m_readerFactory;
    std::chrono::milliseconds m_sampleInterval{500};

    QLabel* m_stateLabel = nullptr;
    QLabel* m_comparisonNote = nullptr;
    QLabel* m_runTotalsLabel = nullptr; // the run so far from the server's counters (runTotals)
    QLabel* m_speedLabel = nullptr;     // measured against expected decode, effective bandwidth
    QLabel* m_learningLabel = nullptr;  // what the speed model learns from this run
    MemoryTimeChart* m_memoryChart = nullptr;
    ThroughputChart* m_throughputChart = nullptr;
    SlotFillTable* m_slotTable = nullptr;
    ComparisonTable* m_comparisonTable = nullptr;
    LogPanel* m_logPanel = nullptr;

    std::unique_ptr<ServerProbe> m_probe;
    std::unique_ptr<DeviceSampler> m_sampler;
    std::optional<MemoryEstimate> m_prediction;
    Machine m_machine;
    ModelInfo m_model;                        // the launched model (for bytes per token)
    std::optional<std::uint64_t> m_bandwidth; // the session's bandwidth at launch
    SessionSpeed m_sessionSpeed;              // reads the efficiency at Starting
    SpeedEfficiency m_efficiency;             // the launched machine's
    std::optional<LiveSpeed> m_liveSpeed;
    LiveRunTally m_liveRun;  // the run's tokens against the bound, for learning
    std::string m_modelPath; // the launched model's file (empty for a card)
    QDateTime m_readyAt;     // the live run's start
    std::chrono::steady_clock::time_point m_readyTime{};
    std::uint64_t m_seenSlotRates = 0; // pushedCount() of the probe's ring buffers already drawn
    std::uint64_t m_seenTotalRates = 0;
    std::uint64_t m_seenSlots = 0;

    QTimer m_refreshTimer;
    QStringList m_pendingLog;
    bool m_active = false; // between Starting and the end of the run: the timer should run
    bool m_polling = false;
    bool m_memoryDirty = false;
    bool m_throughputDirty = false;
    bool m_slotsDirty = false;
    int m_refreshCount = 0;
};

} // namespace llamafit
