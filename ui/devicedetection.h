#pragma once
// DeviceDetection: runs device discovery (core/system/deviceprobe.h: Vulkan, amdgpu sysfs,
// /proc/meminfo, NVML) once on a worker thread -- creating a Vulkan instance takes tens of
// milliseconds and a sleeping GPU can take longer -- and hands the result back on the GUI
// thread: the detected Machine for the machine panel and the probe the live view's device
// memory readers are made from. Used by MainWindow. Owns the worker thread; the destructor
// waits for a discovery in progress to end (it has no cancellation point).
// Thread: create and use from the GUI thread.

#include "core/machine/memorypools.h"
#include "core/system/deviceprobe.h"

#include <QObject>

#include <memory>

class QThread;

namespace llamafit {

class DeviceDetection : public QObject {
    Q_OBJECT
  public:
    explicit DeviceDetection(DeviceProbeOptions options = {}, QObject* parent = nullptr);
    ~DeviceDetection() override;

    void start(); // once; later calls do nothing
    bool isFinished() const { return m_result != nullptr; }
    // Valid after finished().
    const DeviceProbeResult& result() const { return *m_result; }
    const Machine& machine() const { return m_machine; }
    bool foundGpu() const { return m_foundGpu; }

  signals:
    void finished();

  private:
    DeviceProbeOptions m_options;
    QThread* m_thread = nullptr;
    std::shared_ptr<DeviceProbeResult> m_pending; // written by the worker, read after it ends
    std::unique_ptr<DeviceProbeResult> m_result;
    Machine m_machine;
    bool m_foundGpu = false;
};

} // namespace llamafit
