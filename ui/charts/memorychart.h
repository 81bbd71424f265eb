#pragma once
// MemoryChart: the centre of the app -- one stacked bar per memory pool of the session's
// machine (the GPU memory: VRAM or an APU's BIOS carve-out; the host's system RAM; an APU's
// shared/GTT window only when buffers land there). Bottom to top: the pool's reservation (OS,
// desktop; hatched), llama-server's buffers per component in kChartComponentOrder (one QCPBars
// each, chained with moveAbove), the MTP draft context's and the LoRA adapters' buffers as their
// own segments (kChartOwnerOrder; in the legend while present), other llama-server memory (mmap page cache,
// shared-memory buffers) and run-time growth (prompt cache, checkpoints; light). The pool's capacity is a
// line over its bar (on an APU's carve-out the BIOS split, with the driver's own "free" figure
// drawn faintly beside it); the bar's outline and the text above it give the pool's verdict,
// memoryVerdictLabel the overall one. Hover shows exact MiB and the llama.cpp rule; the
// weights, KV and RS segments add the decode speed (SessionSpeed, as the advice panel). Refused
// settings show llama.cpp's reason instead of bars. Under the chart, memoryBreakdownLabel lists
// each pool's components in MiB/GiB (readable without hovering), and "Without weights"
// (withoutWeightsCheck) draws the bars without the reservation and the weights, at their own
// scale and without the capacity lines: what the sliders move, which is a few pixels of a
// 26 GiB bar at 4096 tokens. With RPC hosts (--rpc) the bars are grouped one column per host
// (core/machine/rpccluster.h clusterHosts): this machine's pools, then each ggml-rpc-server's
// device, with the host's name under its bars and a dashed line between hosts.
// Used by MainWindow. Reads the SizingSession (never writes it); owns its QCustomPlot and items.
// Thread: GUI. Units: bytes in, GiB on the axis, MiB in tooltips and test accessors.

#include "core/sizing/memoryestimate.h"
#include "ui/charts/poolsegments.h"
#include "ui/legendplot.h"
#include "ui/sessionspeed.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <array>
#include <cstddef>
#include <vector>

class QCheckBox;
class QCPAbstractItem;
class QCPBars;
class QCPItemLine;
class QCPItemRect;
class QCPItemText;
class QCustomPlot;
class QLabel;
class QMouseEvent;
class QStackedLayout;

namespace llamafit {

class SizingSession;

class MemoryChart : public QWidget {
    Q_OBJECT
  public:
    explicit MemoryChart(SizingSession* session, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    // Where the tooltips' efficiency is learned from (default: BenchmarkStore's own folder).
    void setBenchmarkFolder(const QString& folder) { m_speed.setStore(BenchmarkStore(folder)); }

    // Test accessors (public for the widget tests; the app does not call them). They read what
    // is drawn: bar values from the QCPBars data, limits from the line items, texts from the
    // text items. A pool that is not drawn reads 0 / NaN / empty.
    double barValueMiB(std::size_t poolIndex, Component component) const;
    double limitMiB(std::size_t poolIndex) const;       // the capacity line; NaN when not drawn
    double backendFreeMiB(std::size_t poolIndex) const; // the driver's figure; NaN when not drawn
    QString verdictText(std::size_t poolIndex) const;   // the text above the bar
    double barKey(std::size_t poolIndex) const;         // the bar's x position; NaN when not drawn
    QStringList hostLabels() const; // the names under the hosts' columns; empty for one machine
    QString toolTipAt(std::size_t poolIndex, Component component) const; // what hover shows
    // The MTP draft context's and the LoRA adapters' own segments (kChartOwnerOrder).
    double ownerBarValueMiB(std::size_t poolIndex, BufferOwner owner) const;
    QString ownerToolTipAt(std::size_t poolIndex, BufferOwner owner) const;

  protected:
    void changeEvent(QEvent* event) override;

  private:
    struct PoolItems {
        QCPItemRect* outline = nullptr;
        QCPItemLine* limit = nullptr;
        QCPItemText* verdict = nullptr;
        QCPItemLine* backendFree = nullptr; // APU carve-out with an observed figure only
        QCPItemText* backendFreeText = nullptr;
    };

    void refresh();
    void showError(const QString& message);
    void rebuildItems();
    void placeKeysByHost(); // m_keys and the host labels, for the current m_segments
    QString tickLabel(const PoolSegments& pool) const; // the pool's name under its bar
    void placeItems(double yMaxGiB);
    void setBarData();
    void restyle();
    void updateVerdictLabel();
    void onMouseMove(QMouseEvent* event);
    QString toolTipAtPixel(const QPointF& pixel) const;
    int drawnIndex(std::size_t poolIndex) const; // -1 when not drawn
    QString backendFreeNote() const;
    // "Sized for llama.cpp b11669: ...": the build the estimate sized for (SizingSession::sizedBuild),
    // and for an older one the rules it is sized with.
    QString sizedForNote() const;

    SizingSession* m_session;
    SessionSpeed m_speed; // the decode-speed line of the weights, KV and RS tooltips
    LegendPlot* m_plot;
    QLabel* m_verdictLabel;
    QLabel* m_messageLabel;
    QLabel* m_noteLabel;
    QLabel* m_breakdownLabel;
    QLabel* m_sizedForLabel; // "llama.cpp b11669" under the check box, sizedForNote() its tooltip
    QCheckBox* m_withoutWeightsCheck;
    QStackedLayout* m_stack;
    QCPBars* m_reservationBars;
    std::array<QCPBars*, 6> m_componentBars{};            // kChartComponentOrder
    std::array<QCPBars*, kChartOwnerCount> m_ownerBars{}; // kChartOwnerOrder
    QCPBars* m_otherBars;
    QCPBars* m_growthBars;
    std::vector<PoolSegments> m_segments;      // what is drawn, for hover
    std::vector<PoolItems> m_items;            // one per drawn pool
    std::vector<double> m_keys;                // each drawn pool's x position
    std::vector<QCPAbstractItem*> m_hostItems; // host labels and the lines between hosts
    std::vector<QCPItemText*> m_hostLabels;    // in host order, within m_hostItems
    bool m_groupedByHost = false;              // RPC hosts: one column per host
};

} // namespace llamafit
