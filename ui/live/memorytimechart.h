#pragma once
// MemoryTimeChart ("liveMemoryChart"): memory over time while llama-server runs -- the
// server's resident set size, the host's available memory and each device-memory series of
// the DeviceSampler -- with the predicted totals (dashed) and the pools' limits (dash-dot)
// as horizontal reference lines. Used by LiveView, which feeds it the sampler's samples and
// calls refresh() from its refresh timer.
// Owns: its series. Thread: GUI thread. Units: y in MiB (bytes / 2^20), x in seconds.

#include "ui/live/livetimechart.h"

#include "core/machine/memorypools.h"
#include "core/sizing/memoryestimate.h"
#include "core/system/devicesampler.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct MemoryReference {
    QString label;
    std::uint64_t bytes = 0;
    bool limit = false; // a pool's capacity (else a predicted total)
    bool operator==(const MemoryReference&) const = default;
};

// The reference lines for a run: the predicted host total and each GPU's predicted total
// (when there is a prediction), and the capacity of the host pool and of each GPU's pool
// (when the machine knows it).
std::vector<MemoryReference> memoryReferences(const std::optional<MemoryEstimate>& prediction,
                                              const Machine& machine);

class MemoryTimeChart : public LiveTimeChart {
    Q_OBJECT
  public:
    explicit MemoryTimeChart(QWidget* parent = nullptr);

    // One series per device-memory reader, in DeviceSampler::deviceLabels() order; replaces
    // the previous device series and their points.
    void setDeviceLabels(const std::vector<std::string>& labels);
    void setReferences(const std::vector<MemoryReference>& references);
    // One sampler sample at `seconds`; missing values add no point.
    void addSample(double seconds, const DeviceSample& sample);

    int rssPointCount() const { return pointCount(m_rss); }
    int hostAvailablePointCount() const { return pointCount(m_hostAvailable); }
    int deviceSeriesCount() const { return static_cast<int>(m_devices.size()); }
    int devicePointCount(std::size_t index) const; // 0 for an index out of range
    double latestRssMiB() const { return latestValue(m_rss); }

  private:
    QCPGraph* m_rss = nullptr;
    QCPGraph* m_hostAvailable = nullptr;
    std::vector<QCPGraph*> m_devices;
};

} // namespace llamafit
