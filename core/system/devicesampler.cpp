// The sampler's worker thread and ring buffers (see devicesampler.h).
//
// Threads: DeviceSampler lives on the caller's (GUI) thread; DeviceSamplerWorker lives on
// m_thread with its QTimer. Settings go to the worker as queued calls, samples come back as a
// queued call to accept(); nothing is shared, so there is no lock.

#include "core/system/devicesampler.h"

#include "core/system/hostmemory.h"

#include <QMetaObject>
#include <QTimer>

#include <algorithm>

namespace llamafit {

namespace {
constexpr std::chrono::milliseconds kMinimumSampleInterval{10};
}

class DeviceSamplerWorker : public QObject {
  public:
    DeviceSamplerWorker(std::vector<std::unique_ptr<DeviceMemoryReader>> readers,
                        std::filesystem::path procDir, DeviceSampler* sampler)
        : m_readers(std::move(readers)), m_procDir(std::move(procDir)), m_sampler(sampler) {}

    // Everything below runs on the worker thread.
    void start(std::chrono::milliseconds interval) {
        if (m_timer == nullptr) {
            m_timer = new QTimer(this);
            QObject::connect(m_timer, &QTimer::timeout, this, [this] { sampleOnce(); });
        }
        m_timer->start(interval);
        sampleOnce();
    }
    void stop() {
        if (m_timer != nullptr) {
            m_timer->stop();
        }
    }
    void setInterval(std::chrono::milliseconds interval) {
        if (m_timer != nullptr && m_timer->isActive()) {
            m_timer->start(interval);
        }
    }
    void setProcessId(std::optional<std::int64_t> pid) { m_processId = pid; }

  private:
    void sampleOnce() {
        DeviceSample sample;
        sample.time = std::chrono::steady_clock::now();
        sample.deviceUsedBytes.reserve(m_readers.size());
        for (const std::unique_ptr<DeviceMemoryReader>& reader : m_readers) {
            Result<std::uint64_t> used = reader->readUsedBytes();
            sample.deviceUsedBytes.push_back(used ? std::optional<std::uint64_t>(*used) : std::nullopt);
        }
        if (Result<HostMemory> host = readHostMemory(m_procDir)) {
            sample.hostAvailableBytes = host->memAvailableBytes;
        }
        if (m_processId) {
            if (Result<std::uint64_t> rss = readProcessRssBytes(*m_processId, m_procDir)) {
                sample.processRssBytes = *rss;
            }
        }
        // The sampler outlives the worker (its destructor stops this thread first), so the
        // queued call can never reach a deleted sampler.
        QMetaObject::invokeMethod(
            m_sampler, [sampler = m_sampler, sample = std::move(sample)] { sampler->accept(sample); },
            Qt::QueuedConnection);
    }

    std::vector<std::unique_ptr<DeviceMemoryReader>> m_readers;
    std::filesystem::path m_procDir;
    DeviceSampler* m_sampler;
    QTimer* m_timer = nullptr;
    std::optional<std::int64_t> m_processId;
};

DeviceSampler::DeviceSampler(std::vector<std::unique_ptr<DeviceMemoryReader>> readers, std::size_t capacity,
                             std::filesystem::path procDir, QObject* parent)
    : QObject(parent), m_hostAvailable(capacity), m_processRss(capacity) {
    qRegisterMetaType<DeviceSample>();
    for (const std::unique_ptr<DeviceMemoryReader>& reader : readers) {
        m_labels.push_back(reader->label());
        m_deviceUsed.emplace_back(capacity);
    }
    m_worker = new DeviceSamplerWorker(std::move(readers), std::move(procDir), this);
    m_worker->moveToThread(&m_thread);
    // QThread::finished is delivered in the worker thread before it ends: the worker and its
    // timer are deleted on their own thread.
    connect(&m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    m_thread.setObjectName(QStringLiteral("llamafit-device-sampler"));
    m_thread.start();
}

DeviceSampler::~DeviceSampler() {
    m_thread.quit();
    m_thread.wait();
}

void DeviceSampler::setInterval(std::chrono::milliseconds interval) {
    m_interval = std::max(interval, kMinimumSampleInterval);
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, value = m_interval] { worker->setInterval(value); },
        Qt::QueuedConnection);
}

void DeviceSampler::setProcessId(std::optional<std::int64_t> pid) {
    m_processId = pid;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, pid] { worker->setProcessId(pid); }, Qt::QueuedConnection);
}

void DeviceSampler::start() {
    m_running = true;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, value = m_interval] { worker->start(value); }, Qt::QueuedConnection);
}

void DeviceSampler::stop() {
    m_running = false;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker] { worker->stop(); }, Qt::QueuedConnection);
}

void DeviceSampler::accept(const DeviceSample& sample) {
    // A sample already queued when stop() was called is still a true reading: keep it.
    for (std::size_t i = 0; i < m_deviceUsed.size() && i < sample.deviceUsedBytes.size(); ++i) {
        if (sample.deviceUsedBytes[i]) {
            m_deviceUsed[i].push(sample.time, *sample.deviceUsedBytes[i]);
        }
    }
    if (sample.hostAvailableBytes) {
        m_hostAvailable.push(sample.time, *sample.hostAvailableBytes);
    }
    if (sample.processRssBytes) {
        m_processRss.push(sample.time, *sample.processRssBytes);
    }
    emit sampled(sample);
}

} // namespace llamafit
