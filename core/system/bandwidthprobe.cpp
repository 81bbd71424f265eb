// The host memory-bandwidth probe; see bandwidthprobe.h.
#include "core/system/bandwidthprobe.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <new>
#include <thread>
#include <vector>

namespace llamafit {

namespace {

using Clock = std::chrono::steady_clock;

// Sums 64-bit words with four independent accumulators so the loop is bound by memory, not by
// one add chain. The sum is returned and kept, so the compiler cannot drop the reads.
std::uint64_t readSlice(const std::uint64_t* words, std::size_t count) {
    std::uint64_t a = 0;
    std::uint64_t b = 0;
    std::uint64_t c = 0;
    std::uint64_t d = 0;
    std::size_t i = 0;
    for (; i + 4 <= count; i += 4) {
        a += words[i];
        b += words[i + 1];
        c += words[i + 2];
        d += words[i + 3];
    }
    for (; i < count; ++i) {
        a += words[i];
    }
    return a + b + c + d;
}

// One pass: every thread reads its contiguous slice; the pass lasts until the last one is done.
double timedPass(const std::uint64_t* words, std::size_t count, std::uint32_t threads,
                 std::vector<std::uint64_t>& sums) {
    const std::size_t slice = (count + threads - 1) / threads;
    std::vector<std::thread> workers;
    workers.reserve(threads);
    const Clock::time_point start = Clock::now();
    for (std::uint32_t t = 0; t < threads; ++t) {
        const std::size_t begin = std::min(count, t * slice);
        const std::size_t end = std::min(count, begin + slice);
        workers.emplace_back(
            [&sums, words, begin, end, t] { sums[t] += readSlice(words + begin, end - begin); });
    }
    for (std::thread& worker : workers) {
        worker.join();
    }
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string methodText(const BandwidthMeasurement& m) {
    return "read of " + std::to_string(m.bufferBytes / (1024 * 1024)) + " MiB by " +
           std::to_string(m.threads) + (m.threads == 1 ? " thread" : " threads") + ", best of " +
           std::to_string(m.passes) + (m.passes == 1 ? " pass" : " passes");
}

} // namespace

Result<BandwidthMeasurement> measureHostBandwidth(const BandwidthProbeOptions& options) {
    const std::size_t count = options.bufferBytes / sizeof(std::uint64_t);
    if (count == 0 || options.maxPasses == 0) {
        return makeError("bandwidth.bad-options", "the bandwidth probe needs a buffer and at least one pass");
    }
    const std::unique_ptr<std::uint64_t[]> words(new (std::nothrow) std::uint64_t[count]);
    if (!words) {
        return makeError("bandwidth.no-memory", "could not allocate the " +
                                                    std::to_string(options.bufferBytes / (1024 * 1024)) +
                                                    " MiB bandwidth-probe buffer");
    }
    // First touch: the kernel maps the pages now, so page faults do not count as bandwidth.
    for (std::size_t i = 0; i < count; ++i) {
        words[i] = i;
    }
    BandwidthMeasurement result;
    result.bufferBytes = count * sizeof(std::uint64_t);
    result.threads =
        options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::uint64_t> sums(result.threads, 0);
    double best = 0;
    while (result.passes < options.maxPasses &&
           (result.passes == 0 || result.elapsedSeconds < options.timeBudgetSeconds)) {
        const double seconds = timedPass(words.get(), count, result.threads, sums);
        result.elapsedSeconds += seconds;
        ++result.passes;
        if (seconds > 0 && (best == 0 || seconds < best)) {
            best = seconds;
        }
    }
    // The sums are data-dependent; checking them against the closed form keeps the reads live.
    std::uint64_t total = 0;
    for (std::uint64_t sum : sums) {
        total += sum;
    }
    const std::uint64_t n = count;
    const std::uint64_t expected = (n % 2 == 0 ? n / 2 * (n - 1) : (n - 1) / 2 * n) * result.passes;
    if (total != expected || best <= 0) {
        return makeError("bandwidth.bad-read", "the bandwidth probe's reads did not add up");
    }
    result.bytesPerSecond = static_cast<std::uint64_t>(static_cast<double>(result.bufferBytes) / best);
    result.method = methodText(result);
    return result;
}

} // namespace llamafit
