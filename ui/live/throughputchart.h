#pragma once
// ThroughputChart ("throughputChart"): tokens per second over time while llama-server runs:
// the tokens all slots decoded together, one series per slot, and the prompt speed of the
// requests that finished (when any did). Used by LiveView, which feeds it ServerProbe's
// throughput samples (built from /slots and /metrics deltas, core/server/throughput.h) and
// calls refresh() from its refresh timer.
// Owns: its series. Thread: GUI thread. Units: y in tokens/s, x in seconds.

#include "ui/live/livetimechart.h"

#include "core/server/throughput.h"

#include <cstdint>
#include <map>
#include <vector>

namespace llamafit {

class ThroughputChart : public LiveTimeChart {
    Q_OBJECT
  public:
    explicit ThroughputChart(QWidget* parent = nullptr);

    // One /metrics-based total at `seconds`.
    void addTotal(double seconds, const TotalThroughput& total);
    // One /slots-based set of per-slot rates at `seconds`; a slot seen first gets its series.
    void addSlots(double seconds, const std::vector<SlotThroughput>& rates);
    // Removes the points and the per-slot series (a new run).
    void reset();

    int totalPointCount() const { return pointCount(m_total); }
    int promptPointCount() const { return pointCount(m_prompt); }
    int slotSeriesCount() const { return static_cast<int>(m_slots.size()); }
    int slotPointCount(std::int32_t slotId) const; // 0 for a slot without a series
    double latestTotalTokensPerSecond() const { return latestValue(m_total); }
    // The highest total in the window (0 when empty).
    double peakTotalTokensPerSecond() const;

  private:
    QCPGraph* m_total = nullptr;
    QCPGraph* m_prompt = nullptr;
    std::map<std::int32_t, QCPGraph*> m_slots;
};

} // namespace llamafit
