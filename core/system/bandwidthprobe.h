#pragma once
// A quick measurement of host memory bandwidth: a few passes of every logical CPU reading its
// slice of one large buffer (256 MiB by default, larger than any CPU cache), best pass wins,
// stopped after about 0.3 s. It is what the CPU can read, the figure CPU-only decode is bound by
// (seed 003: t/s <= bandwidth / bytes read per token); an iGPU reading the same memory usually
// gets more, so for an APU it is a lower bound. Used by `llamafit-cli devices --bandwidth`,
// `llamafit-cli plan --bandwidth` and the GUI's machine panel.
// BLOCKING for up to about half a second and it keeps every core busy meanwhile: never call it
// on the GUI thread (run it on a worker, like probeDevices()).
// Units: bytes and bytes per second (decimal GB/s x 1e9 when shown).

#include "core/common/result.h"

#include <cstdint>
#include <string>

namespace llamafit {

struct BandwidthProbeOptions {
    std::uint64_t bufferBytes = 256ULL * 1024 * 1024;
    std::uint32_t maxPasses = 8;    // stop after this many timed passes...
    double timeBudgetSeconds = 0.3; // ...or once the passes so far took this long (at least one runs)
    std::uint32_t threads = 0;      // 0: std::thread::hardware_concurrency()
};

struct BandwidthMeasurement {
    std::uint64_t bytesPerSecond = 0; // the best pass: bufferBytes / its wall time
    std::uint64_t bufferBytes = 0;
    std::uint32_t passes = 0; // timed passes run
    std::uint32_t threads = 0;
    double elapsedSeconds = 0; // all timed passes together (the first touch not included)
    std::string method;        // for people: "read of 256 MiB by 16 threads, best of 5 passes"
};

// Errors: "bandwidth.bad-options" (a zero buffer or no passes), "bandwidth.no-memory" (the
// buffer could not be allocated), "bandwidth.bad-read" (the words read back did not add up, or
// no pass took measurable time).
Result<BandwidthMeasurement> measureHostBandwidth(const BandwidthProbeOptions& options = {});

} // namespace llamafit
