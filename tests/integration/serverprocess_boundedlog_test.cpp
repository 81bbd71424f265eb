// ServerProcess's log stays in fixed memory through 256 MiB of output from a real child
// process, and the diagnosis still works: a shell prints 1 MiB of -lv 4 slot-log noise (so
// that what follows lies beyond the log's verbatim head), the start of a real llama-server
// 0.7.0 compute-buffer allocation failure (tests/data/server/fail-oom-compute.log up to its
// first error line: the buffer lines), then 256 MiB of the same noise, then the failure's error
// lines, and exits 1. The test process's resident memory is read from /proc/self/statm before and
// after; the failure must be classified as from the original log, and the allocation log
// parsed from what was kept must equal the original's. Waits on signals, never sleeps.

#include "core/server/allocationlog.h"
#include "core/system/serverprocess.h"
#include "tests/integration/scratchdirectory.h"
#include "tests/support/sanitizers.h"

#include <QSignalSpy>

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace llamafit {
namespace {

// Four times what the test process may gain: a log that kept its input would fail by far. (It was
// a gigabyte, 87 s of CI's time, for the same proof.)
constexpr std::uint64_t kNoiseBytes = 256ull * 1024 * 1024;
// The memory the test process may gain while the noise passes: the log's cap plus room
// for the allocator, Qt's pipe buffers and the copies of the kept log in the LaunchFailure.
constexpr std::uint64_t kAllowedGrowthBytes = 64ull * 1024 * 1024;

std::uint64_t residentBytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t sizePages = 0;
    std::uint64_t residentPages = 0;
    statm >> sizePages >> residentPages;
    return residentPages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

std::string readCapture(const std::string& name) {
    std::ifstream file(std::string(LLAMAFIT_TEST_SERVER_DATA_DIR) + "/" + name, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

bool writeFile(const std::string& path, const std::string& text) {
    std::ofstream file(path, std::ios::binary);
    file << text;
    return static_cast<bool>(file);
}

TEST(ServerProcessBoundedLog, QuarterGigabyteOfOutputKeepsMemoryFlatAndTheDiagnosis) {
    if (LLAMAFIT_UNDER_ASAN) {
        GTEST_SKIP() << "what this test measures is resident memory, which AddressSanitizer's quarantine "
                        "holds on to (the bounded log's memory safety is in the unit suite: boundedlog_test)";
    }
    const std::string log = readCapture("fail-oom-compute.log");
    const std::size_t firstError = log.find(" E ");
    ASSERT_NE(firstError, std::string::npos);
    const std::size_t split = log.rfind('\n', firstError) + 1;
    std::string error;
    const std::string& directory = test::scratchDirectory(error);
    ASSERT_FALSE(directory.empty()) << error;
    const std::string startup = directory + "/boundedlog-startup.log";
    const std::string failure = directory + "/boundedlog-failure.log";
    ASSERT_TRUE(writeFile(startup, log.substr(0, split)));
    ASSERT_TRUE(writeFile(failure, log.substr(split)));

    ServerProcess process;
    ServerProcess::Timing timing;
    timing.loadLimit = std::chrono::minutes(10); // the test's own timeout decides
    process.setTiming(timing);
    QSignalSpy failed(&process, &ServerProcess::failed);
    const std::uint64_t residentBefore = residentBytes();
    // ServerProcess appends --host/--port; sh -c sees them as $3 and on, unused.
    const QString script = QStringLiteral("yes \"$1\" | head -c 1048576; echo; cat \"$0\"; yes \"$1\" | head "
                                          "-c %1; echo; cat \"$2\"; exit 1")
                               .arg(kNoiseBytes);
    ASSERT_TRUE(process.start(
        QStringLiteral("sh"),
        {QStringLiteral("-c"), script, QString::fromStdString(startup),
         QStringLiteral("0.05.123.456 I slot update_slots: id  0 | task 4711 | prompt processing "
                        "progress, n_tokens = 1024, batch.n_tokens = 512, progress = 0.25"),
         QString::fromStdString(failure)}));
    ASSERT_TRUE(failed.wait(300000)) << "no failure within 300 s; state "
                                     << ServerProcess::stateName(process.state());
    const std::uint64_t residentAfter = residentBytes();
    const BoundedLog& kept = process.boundedLog();
    std::printf("bounded log: %llu bytes received, %zu stored (cap %zu), %llu dropped; RSS before %.1f MiB, "
                "after %.1f MiB\n",
                static_cast<unsigned long long>(kept.receivedBytes()), kept.storedBytes(),
                kBoundedLogCapBytes, static_cast<unsigned long long>(kept.droppedBytes()),
                residentBefore / 1048576.0, residentAfter / 1048576.0);

    EXPECT_GT(kept.receivedBytes(), kNoiseBytes + 1048576);
    EXPECT_LE(kept.storedBytes(), kBoundedLogCapBytes);
    EXPECT_LE(residentAfter, residentBefore + kAllowedGrowthBytes);
    const std::string text = process.log();
    EXPECT_LE(text.size(), kBoundedLogCapBytes);
    EXPECT_NE(text.find("of llama-server output not kept (bounded log)]"), std::string::npos);

    // The diagnosis is the one the original log gives.
    LaunchOutcome outcome;
    outcome.log = log;
    outcome.exitCode = 1;
    const LaunchFailure expected = classifyLaunchFailure(outcome);
    ASSERT_EQ(expected.reason, LaunchFailureReason::AllocationFailed);
    const LaunchFailure& actual = process.failure();
    EXPECT_EQ(actual.reason, expected.reason) << actual.message;
    EXPECT_EQ(actual.allocation, expected.allocation);
    EXPECT_EQ(actual.evidence, expected.evidence);
    EXPECT_EQ(actual.message, expected.message);
    const Result<AllocationLog> original = parseAllocationLog(log);
    const Result<AllocationLog> fromKept = parseAllocationLog(text);
    ASSERT_TRUE(original.ok() && fromKept.ok());
    EXPECT_EQ(*fromKept, *original);
    EXPECT_FALSE(fromKept->kvMiB.empty()); // the buffer lines were found
}

} // namespace
} // namespace llamafit
