#pragma once
// SweepChart: the context sweep -- total memory of the constraining device (the first GPU when
// layers go there, else the host) against context on a log2 axis, one line per K/V type pair
// (f16/f16, q8_0/q8_0, f16/q8_0, q4_0/q4_0 and the session's own pair), the device's budget as
// a line, and per pair a marker at the largest context that fits (largestContextPerKvPair(),
// so it always equals the solver's answer), named in the legend ("q8_0/q8_0: 98 304"). Pairs
// llama-server refuses for the model are left out with a note. Clicking a point, a marker or a
// legend entry sets the session's context and K/V types.
// Used by MainWindow. Reads the SizingSession and writes it through setSettings(); owns its
// QCustomPlot and graphs. Recomputes at most once per event-loop turn (estimateChanged only
// starts a zero-timer), on a worker thread: a sweep is hundreds of estimates, which take a second
// or more for a model the sizing engine replays (docs/engine.md, Speed), and the window stays
// live meanwhile; settings changed while a sweep runs are swept when it ends, and only the newest
// settings' sweep is drawn, then one replot queued. Thread: GUI (the sweep itself on its own
// QThread, over copies of the session's model and settings). Units: tokens; GiB on the axis.

#include "core/sizing/contextsweep.h"

#include <QTimer>
#include <QVector>
#include <QWidget>

#include <cstdint>
#include <optional>
#include <vector>

class QCPAbstractLegendItem;
class QCPGraph;
class QCPItemStraightLine;
class QCPLegend;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QThread;

namespace llamafit {

class SizingSession;

class SweepChart : public QWidget {
    Q_OBJECT
  public:
    explicit SweepChart(SizingSession* session, QWidget* parent = nullptr);
    // Waits for a sweep still running (at most about a second).
    ~SweepChart() override;

    QCustomPlot* plot() const { return m_plot; }

    // Test accessors (public for the widget tests; the app does not call them). Valid after
    // recomputed(); series values are read back from the graphs' data.
    std::vector<ContextFit> largestFits() const { return m_data.fits; }   // the solver's vector
    std::vector<KvPair> kvPairs() const;                                  // in solver order
    QVector<double> seriesContexts(GgmlType typeK, GgmlType typeV) const; // tokens; empty if omitted
    QVector<double> seriesTotalsMiB(GgmlType typeK, GgmlType typeV) const;
    QCPGraph* seriesGraph(GgmlType typeK, GgmlType typeV) const; // nullptr when omitted
    QCPGraph* markerGraph(GgmlType typeK, GgmlType typeV) const; // nullptr when nothing fits
    QString deviceName() const;
    int sweepCount() const { return m_sweepCount; } // sweeps computed (a context change alone computes none)
    bool sweeping() const { return m_sweepThread != nullptr; } // a sweep is being computed
    double currentContextLine() const; // x of the "current context" line; 0 when hidden

  signals:
    // After each (coalesced) recompute: data set, replot queued.
    void recomputed();

  protected:
    void changeEvent(QEvent* event) override;

  private:
    struct PairGraphs {
        KvPair pair;
        QCPGraph* line = nullptr;
        QCPGraph* marker = nullptr;
    };

    // What the sweep depends on: everything but the context itself (each line spans every
    // context), so a context-slider drag only moves the "current context" line.
    struct SweepInputs {
        ServerSettings settings; // contextTokens cleared
        MemoryBudget budget;
        std::vector<GpuDevice> gpus;
        std::uint64_t modelGeneration = 0;
        bool operator==(const SweepInputs&) const = default;
    };

    SweepInputs currentInputs() const;
    void recompute();
    // Starts sweeping the session's settings on a worker thread; its end draws them, or sweeps
    // again when the settings changed meanwhile.
    void startSweep(SweepInputs inputs);
    void placeCurrentLine();
    void rebuildGraphs();
    void setGraphData();
    void updateNote();
    void restyle();
    void onMousePress(QMouseEvent* event);
    void onLegendClick(QCPLegend* legend, QCPAbstractLegendItem* item, QMouseEvent* event);
    void applyPoint(const KvPair& pair, std::uint32_t contextTokens);
    const PairGraphs* find(const KvPair& pair) const;

    SizingSession* m_session;
    QCustomPlot* m_plot;
    QLabel* m_noteLabel;
    QTimer m_recomputeTimer;
    SweepData m_data;
    std::vector<PairGraphs> m_graphs;
    QCPGraph* m_budgetGraph;
    QCPItemStraightLine* m_currentLine;
    std::optional<SweepInputs> m_inputs; // of the data drawn
    QThread* m_sweepThread = nullptr;    // the sweep being computed, if any
    std::uint64_t m_modelGeneration = 0;
    int m_sweepCount = 0;
};

} // namespace llamafit
