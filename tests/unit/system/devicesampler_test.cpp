// DeviceSampler: samples arrive as signals (waited for with QSignalSpy, never with sleeps),
// land in ring buffers, read the real /proc for this process, and are taken on a worker
// thread so a slow source cannot block the caller's event loop.

#include "core/common/units.h"
#include "core/system/devicesampler.h"

#include <QCoreApplication>
#include <QSignalSpy>
#include <QTimer>

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

namespace llamafit {
namespace {

using namespace std::chrono_literals;

constexpr int kWaitMs = 10000; // generous: a loaded CI machine, never reached when things work

// Counts up by 1 MiB per read and remembers the thread it ran on.
class CountingReader final : public DeviceMemoryReader {
  public:
    explicit CountingReader(std::atomic<std::thread::id>* thread) : m_thread(thread) {}
    const std::string& label() const override { return m_label; }
    std::size_t gpuIndex() const override { return 0; }
    Result<std::uint64_t> readUsedBytes() override {
        m_thread->store(std::this_thread::get_id());
        m_used += kMiB;
        return m_used;
    }

  private:
    std::string m_label = "counting device";
    std::atomic<std::thread::id>* m_thread;
    std::uint64_t m_used = 0;
};

class FailingReader final : public DeviceMemoryReader {
  public:
    const std::string& label() const override { return m_label; }
    std::size_t gpuIndex() const override { return 1; }
    Result<std::uint64_t> readUsedBytes() override { return makeError("test.unreadable", "always fails"); }

  private:
    std::string m_label = "failing device";
};

// Blocks its first read until released (or 20 s pass, which the test reports as a failure).
class BlockingReader final : public DeviceMemoryReader {
  public:
    BlockingReader(std::shared_future<void> release, std::atomic<bool>* releasedInTime)
        : m_release(std::move(release)), m_releasedInTime(releasedInTime) {}
    const std::string& label() const override { return m_label; }
    std::size_t gpuIndex() const override { return 0; }
    Result<std::uint64_t> readUsedBytes() override {
        if (!m_waited) {
            m_waited = true;
            m_releasedInTime->store(m_release.wait_for(20s) == std::future_status::ready);
        }
        return std::uint64_t{1};
    }

  private:
    std::string m_label = "blocking device";
    std::shared_future<void> m_release;
    std::atomic<bool>* m_releasedInTime;
    bool m_waited = false;
};

DeviceSample waitForSample(QSignalSpy& spy, int count) {
    while (spy.count() < count) {
        if (!spy.wait(kWaitMs)) {
            ADD_FAILURE() << "no sample within " << kWaitMs << " ms (" << spy.count() << " of " << count
                          << ")";
            return {};
        }
    }
    return spy.at(count - 1).at(0).value<DeviceSample>();
}

TEST(DeviceSampler, DefaultsToTwoHertz) {
    DeviceSampler sampler({});
    EXPECT_EQ(sampler.interval(), 500ms);
    EXPECT_FALSE(sampler.isRunning());
    sampler.setInterval(1ms);
    EXPECT_EQ(sampler.interval(), 10ms); // floor
}

TEST(DeviceSampler, SamplesDevicesHostAndProcessIntoRingBuffers) {
    std::atomic<std::thread::id> readerThread;
    std::vector<std::unique_ptr<DeviceMemoryReader>> readers;
    readers.push_back(std::make_unique<CountingReader>(&readerThread));
    readers.push_back(std::make_unique<FailingReader>());
    DeviceSampler sampler(std::move(readers));
    ASSERT_EQ(sampler.deviceLabels(), (std::vector<std::string>{"counting device", "failing device"}));
    sampler.setProcessId(static_cast<std::int64_t>(QCoreApplication::applicationPid()));
    sampler.setInterval(20ms);
    QSignalSpy spy(&sampler, &DeviceSampler::sampled);
    ASSERT_TRUE(spy.isValid());
    sampler.start();
    EXPECT_TRUE(sampler.isRunning());

    const DeviceSample third = waitForSample(spy, 3);
    ASSERT_EQ(third.deviceUsedBytes.size(), 2u);
    EXPECT_EQ(third.deviceUsedBytes[0], 3 * kMiB);
    EXPECT_EQ(third.deviceUsedBytes[1], std::nullopt); // a failed read is a gap, not a zero
    ASSERT_TRUE(third.hostAvailableBytes);
    EXPECT_GT(*third.hostAvailableBytes, 0u);
    ASSERT_TRUE(third.processRssBytes);
    EXPECT_GT(*third.processRssBytes, 1 * kMiB); // this test process is resident

    EXPECT_NE(readerThread.load(), std::this_thread::get_id()); // read on the worker
    sampler.stop();
    EXPECT_FALSE(sampler.isRunning());

    const std::size_t taken = static_cast<std::size_t>(spy.count());
    EXPECT_GE(sampler.deviceUsed(0).size(), 3u);
    EXPECT_EQ(sampler.deviceUsed(0).size(), taken);
    EXPECT_TRUE(sampler.deviceUsed(1).empty());
    EXPECT_EQ(sampler.hostAvailable().size(), taken);
    EXPECT_EQ(sampler.processRss().size(), taken);
    const auto series = sampler.deviceUsed(0).entries();
    for (std::size_t i = 1; i < series.size(); ++i) {
        EXPECT_GT(series[i].value, series[i - 1].value);
        EXPECT_GE(series[i].time, series[i - 1].time);
    }
}

TEST(DeviceSampler, RingBuffersKeepTheNewest) {
    std::atomic<std::thread::id> readerThread;
    std::vector<std::unique_ptr<DeviceMemoryReader>> readers;
    readers.push_back(std::make_unique<CountingReader>(&readerThread));
    DeviceSampler sampler(std::move(readers), 2);
    sampler.setInterval(10ms);
    QSignalSpy spy(&sampler, &DeviceSampler::sampled);
    sampler.start();
    const DeviceSample fifth = waitForSample(spy, 5);
    sampler.stop();
    EXPECT_EQ(sampler.deviceUsed(0).size(), 2u);
    EXPECT_EQ(sampler.deviceUsed(0).capacity(), 2u);
    EXPECT_GE(sampler.deviceUsed(0).pushedCount(), 5u);
    ASSERT_TRUE(fifth.deviceUsedBytes[0]);
    EXPECT_GE(sampler.deviceUsed(0).latest().value, *fifth.deviceUsedBytes[0]);
}

TEST(DeviceSampler, ProcessThatIsGoneGivesNoRss) {
    // A fixture /proc: host memory from its meminfo, and no such pid in it.
    DeviceSampler sampler({}, DeviceSampler::kDefaultCapacity,
                          std::filesystem::path(LLAMAFIT_TEST_SYSFS_DIR) / "evo-x2-64g-32-32" / "proc");
    sampler.setProcessId(4242);
    sampler.setInterval(10ms);
    QSignalSpy spy(&sampler, &DeviceSampler::sampled);
    sampler.start();
    const DeviceSample sample = waitForSample(spy, 1);
#ifndef _WIN32 // Windows' host memory comes from GlobalMemoryStatusEx, not from a /proc
    EXPECT_EQ(sample.hostAvailableBytes, 19 * kGiB);
#endif
    EXPECT_EQ(sample.processRssBytes, std::nullopt);
    EXPECT_TRUE(sampler.processRss().empty());
}

TEST(DeviceSampler, ASlowSourceDoesNotBlockTheCallersEventLoop) {
    std::promise<void> release;
    std::atomic<bool> releasedInTime{false};
    std::vector<std::unique_ptr<DeviceMemoryReader>> readers;
    readers.push_back(std::make_unique<BlockingReader>(release.get_future().share(), &releasedInTime));
    DeviceSampler sampler(std::move(readers));
    QSignalSpy spy(&sampler, &DeviceSampler::sampled);
    // The reader is stuck until this timer fires on the caller's thread: if sampling ran on
    // this thread, the timer could never fire and the reader would time out.
    QTimer::singleShot(50ms, [&release] { release.set_value(); });
    sampler.start();
    waitForSample(spy, 1);
    EXPECT_TRUE(releasedInTime.load());
}

TEST(DeviceSampler, RestartsAfterStop) {
    std::atomic<std::thread::id> readerThread;
    std::vector<std::unique_ptr<DeviceMemoryReader>> readers;
    readers.push_back(std::make_unique<CountingReader>(&readerThread));
    DeviceSampler sampler(std::move(readers));
    sampler.setInterval(10ms);
    QSignalSpy spy(&sampler, &DeviceSampler::sampled);
    sampler.start();
    waitForSample(spy, 1);
    sampler.stop();
    const int before = spy.count();
    sampler.start(); // the first sample of a start is immediate
    waitForSample(spy, before + 1);
    EXPECT_GT(spy.count(), before);
}

} // namespace
} // namespace llamafit
