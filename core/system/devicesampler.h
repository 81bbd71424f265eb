#pragma once
// DeviceSampler: the live memory chart's data source. A worker thread reads, at a settable
// rate (2 Hz by default), each device-memory series (devicememoryreader.h), the host's
// available memory and one process's resident set size (the llama-server being watched);
// the results come back to the sampler's thread, are pushed into ring buffers, and are
// announced by sampled(). All reads (sysfs can wake a sleeping GPU, NVML can take
// milliseconds) happen on the worker, so the GUI thread never blocks on them; only the
// destructor waits for the sample in progress to finish.
// Owns: the worker thread, the readers (moved to the worker), the ring buffers.
// Thread: create and use from one thread with an event loop (the GUI thread).
// Units: bytes; the interval is std::chrono::milliseconds.

#include "core/common/ringbuffer.h"
#include "core/system/devicememoryreader.h"

#include <QObject>
#include <QThread>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct DeviceSample {
    std::chrono::steady_clock::time_point time;
    std::vector<std::optional<std::uint64_t>>
        deviceUsedBytes;                             // one per series, DeviceSampler::deviceLabels() order
    std::optional<std::uint64_t> hostAvailableBytes; // MemAvailable
    std::optional<std::uint64_t> processRssBytes;    // empty without a process, or once it exited
};

class DeviceSamplerWorker;

class DeviceSampler : public QObject {
    Q_OBJECT
  public:
    static constexpr std::chrono::milliseconds kDefaultInterval{500}; // 2 Hz
    static constexpr std::size_t kDefaultCapacity = 1200;             // 10 minutes at 2 Hz

    // procDir is "/proc" except in tests. The sampler does not start until start().
    explicit DeviceSampler(std::vector<std::unique_ptr<DeviceMemoryReader>> readers,
                           std::size_t capacity = kDefaultCapacity, std::filesystem::path procDir = "/proc",
                           QObject* parent = nullptr);
    ~DeviceSampler() override;

    const std::vector<std::string>& deviceLabels() const { return m_labels; }
    std::chrono::milliseconds interval() const { return m_interval; }
    std::optional<std::int64_t> processId() const { return m_processId; }
    bool isRunning() const { return m_running; }

    // Takes effect from the next sample; intervals below 10 ms are raised to 10 ms.
    void setInterval(std::chrono::milliseconds interval);
    // The process whose RSS is sampled (llama-server once the launcher started it); nullopt stops it.
    void setProcessId(std::optional<std::int64_t> pid);
    // The first sample is taken at once, then one per interval.
    void start();
    void stop();

    const RingBuffer<std::uint64_t>& hostAvailable() const { return m_hostAvailable; }
    const RingBuffer<std::uint64_t>& processRss() const { return m_processRss; }
    // Series index as in deviceLabels(); precondition: index < deviceLabels().size().
    const RingBuffer<std::uint64_t>& deviceUsed(std::size_t index) const { return m_deviceUsed[index]; }

  signals:
    // After the sample went into the ring buffers.
    void sampled(const llamafit::DeviceSample& sample);

  private:
    friend class DeviceSamplerWorker;
    void accept(const DeviceSample& sample);

    std::vector<std::string> m_labels;
    std::chrono::milliseconds m_interval = kDefaultInterval;
    std::optional<std::int64_t> m_processId;
    bool m_running = false;
    RingBuffer<std::uint64_t> m_hostAvailable;
    RingBuffer<std::uint64_t> m_processRss;
    std::vector<RingBuffer<std::uint64_t>> m_deviceUsed;
    QThread m_thread;
    DeviceSamplerWorker* m_worker = nullptr; // lives in m_thread; deleted there when it finishes
};

} // namespace llamafit

Q_DECLARE_METATYPE(llamafit::DeviceSample)
