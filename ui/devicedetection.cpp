// Device discovery off the GUI thread; see devicedetection.h.
#include "ui/devicedetection.h"

#include "core/machine/machinefrominventory.h"

#include <QThread>

namespace llamafit {

DeviceDetection::DeviceDetection(DeviceProbeOptions options, QObject* parent)
    : QObject(parent), m_options(std::move(options)) {}

DeviceDetection::~DeviceDetection() {
    if (m_thread != nullptr) {
        m_thread->wait();
    }
}

void DeviceDetection::start() {
    if (m_thread != nullptr) {
        return;
    }
    auto pending = std::make_shared<DeviceProbeResult>();
    m_pending = pending;
    const DeviceProbeOptions options = m_options;
    m_thread = QThread::create([pending, options] { *pending = probeDevices(options); });
    m_thread->setParent(this);
    // QThread::finished is delivered to this (GUI) thread's event loop: the result is
    // complete and the worker no longer touches it.
    connect(m_thread, &QThread::finished, this, [this] {
        m_result = std::make_unique<DeviceProbeResult>(std::move(*m_pending));
        m_pending.reset();
        m_foundGpu = inventoryHasGpu(m_result->inventory);
        m_machine = machineFromInventory(m_result->inventory);
        m_machine.id = "detected";
        emit finished();
    });
    m_thread->start(QThread::LowPriority);
}

} // namespace llamafit
