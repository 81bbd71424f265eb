// Memory over time in the live view; see memorytimechart.h.
#include "ui/live/memorytimechart.h"

#include "core/common/units.h"
#include "core/machine/poolusage.h"
#include "ui/chartstyle.h"

#include <qcustomplot.h>

#include <set>

namespace llamafit {

std::vector<MemoryReference> memoryReferences(const std::optional<MemoryEstimate>& prediction,
                                              const Machine& machine) {
    std::vector<MemoryReference> references;
    if (prediction) {
        for (const DeviceEstimate& device : prediction->devices) {
            references.push_back(MemoryReference{
                device.host ? QCoreApplication::translate("MemoryTimeChart", "predicted host total")
                            : QCoreApplication::translate("MemoryTimeChart", "predicted %1 total")
                                  .arg(QString::fromStdString(device.name)),
                device.bytes.totalBytes(), false});
        }
    }
    std::set<std::size_t> pools{machine.hostPoolIndex};
    for (const MachineGpu& gpu : machine.gpus) {
        pools.insert(gpu.poolIndex);
    }
    for (std::size_t index : pools) {
        if (index < machine.pools.size() && machine.pools[index].capacityKnown) {
            const MemoryPool& pool = machine.pools[index];
            references.push_back(MemoryReference{QCoreApplication::translate("MemoryTimeChart", "%1 limit")
                                                     .arg(QString::fromStdString(pool.name)),
                                                 pool.capacityBytes, true});
        }
    }
    return references;
}

MemoryTimeChart::MemoryTimeChart(QWidget* parent) : LiveTimeChart(parent) {
    setObjectName(QStringLiteral("liveMemoryChart"));
    setToolTip(tr("Memory while llama-server runs: its resident memory, the host's available memory and "
                  "each GPU's memory in use, against the predicted totals (dashed) and the pool limits"));
    plot()->yAxis->setLabel(tr("MiB"));
    m_rss = addSeries(tr("llama-server resident memory"), componentColor(Component::Model));
    m_hostAvailable = addSeries(tr("host memory available"), componentColor(Component::Overhead), true);
    setScalesAxis(m_hostAvailable, false);
    // One entry a row: these names side by side held the Live tab, and with it the window, wider
    // than a 1366-pixel screen leaves between the docks.
    plot()->legend->setWrap(1);
    plot()->legend->setFillOrder(QCPLegend::foColumnsFirst, true); // the entries already added
}

void MemoryTimeChart::setDeviceLabels(const std::vector<std::string>& labels) {
    for (QCPGraph* graph : m_devices) {
        removeSeries(graph);
    }
    m_devices.clear();
    for (const std::string& label : labels) {
        m_devices.push_back(addSeries(QString::fromStdString(label), seriesColor(m_devices.size())));
    }
}

void MemoryTimeChart::setReferences(const std::vector<MemoryReference>& references) {
    clearReferenceLines();
    for (const MemoryReference& reference : references) {
        addReferenceLine(reference.label, toMiB(reference.bytes),
                         reference.limit ? verdictColor(FitVerdict::DoesNotFit)
                                         : componentColor(Component::Model),
                         reference.limit ? Qt::DashDotLine : Qt::DashLine);
    }
}

void MemoryTimeChart::addSample(double seconds, const DeviceSample& sample) {
    if (sample.processRssBytes) {
        addPoint(m_rss, seconds, toMiB(*sample.processRssBytes));
    }
    if (sample.hostAvailableBytes) {
        addPoint(m_hostAvailable, seconds, toMiB(*sample.hostAvailableBytes));
    }
    for (std::size_t i = 0; i < sample.deviceUsedBytes.size() && i < m_devices.size(); ++i) {
        if (sample.deviceUsedBytes[i]) {
            addPoint(m_devices[i], seconds, toMiB(*sample.deviceUsedBytes[i]));
        }
    }
}

int MemoryTimeChart::devicePointCount(std::size_t index) const {
    return index < m_devices.size() ? pointCount(m_devices[index]) : 0;
}

} // namespace llamafit
