// The sizing engine's scheduler and allocator against the real llama-server's own plans
// (tests/data/plans, written by scripts/alloc-plan/record-plans.sh from llama-server 0.7.0): fed
// the graph llama.cpp handed ggml's scheduler, the scheduler port must give every tensor the
// backend the real scheduler gave it, and the allocator port must reserve the compute buffers
// ggml-alloc reserved, to the byte. No server runs here.
#include "core/sizing/allocator/graphallocator.h"
#include "core/sizing/scheduler/graphsplit.h"
#include "tests/unit/sizing/planbackends.h"
#include "tests/unit/sizing/plandump.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

namespace llamafit {
namespace {

namespace fs = std::filesystem;

// A case is a folder of reserves: <case>/<n>.pre and <case>/<n>.post, n = 0, 1, ... in the order
// llama.cpp reserved them.
std::vector<std::string> planCases() {
    std::vector<std::string> cases;
    const fs::path root = LLAMAFIT_PLANS_DIR;
    if (!fs::is_directory(root)) {
        return cases;
    }
    for (const fs::directory_entry& entry : fs::directory_iterator(root)) {
        if (entry.is_directory()) {
            cases.push_back(entry.path().filename().string());
        }
    }
    std::sort(cases.begin(), cases.end());
    return cases;
}

class EnginePlanTest : public ::testing::TestWithParam<std::string> {};

TEST_P(EnginePlanTest, SchedulerAndAllocatorReproduceTheServersPlan) {
    const fs::path folder = fs::path(LLAMAFIT_PLANS_DIR) / GetParam();
    std::vector<std::uint64_t> reservedSoFar;
    // Several devices with every layer offloaded run pipeline-parallel: the scheduler keeps four
    // copies of each split's inputs (the recording's "sched copies").
    scheduler::SchedulerOptions options;
    options.copies = test::planCopies(folder.string());
    for (int reserve = 0; fs::exists(folder / (std::to_string(reserve) + ".pre")); ++reserve) {
        SCOPED_TRACE("reserve " + std::to_string(reserve));
        const Result<test::PlanDump> dump = test::readPlanDump((folder / std::to_string(reserve)).string());
        ASSERT_TRUE(dump.ok()) << dump.error().message;
        const Result<std::vector<scheduler::SchedulerBackend>> backends = test::planBackends(*dump);
        ASSERT_TRUE(backends.ok()) << backends.error().message;
        const Result<scheduler::ScheduledGraph> scheduled =
            scheduler::splitGraph(dump->graph, *backends, options);
        ASSERT_TRUE(scheduled.ok()) << scheduled.error().message;

        std::size_t compared = 0;
        std::vector<std::string> differing;
        for (std::size_t id = 0; id < dump->expectedBackend.size(); ++id) {
            if (dump->expectedBackend[id] < 0 || dump->graph.tensors[id].buffer != graph::kNoBuffer) {
                continue; // weights and caches are not the scheduler's to place
            }
            ++compared;
            if (scheduled->backendOf[id] != dump->expectedBackend[id]) {
                std::ostringstream out;
                out << dump->graph.tensors[id].name << " (" << graph::ggmlOpName(dump->graph.tensors[id].op)
                    << "): " << scheduled->backendOf[id] << " instead of " << dump->expectedBackend[id];
                differing.push_back(out.str());
            }
        }
        EXPECT_GT(compared, 0u);
        EXPECT_TRUE(differing.empty()) << differing.size() << " of " << compared
                                       << " tensors on another backend, first: " << differing.front();

        std::vector<scheduler::BufferType> types;
        for (const scheduler::SchedulerBackend& backend : *backends) {
            types.push_back(backend.computeBufferType);
        }
        const std::vector<std::uint64_t> bytes = allocator::planComputeBuffers(scheduled->plan, types);
        reservedSoFar.resize(bytes.size(), 0);
        for (std::size_t b = 0; b < bytes.size(); ++b) {
            // Buffers only grow: a reserve keeps what an earlier, larger one allocated.
            reservedSoFar[b] = std::max(reservedSoFar[b], bytes[b]);
            ASSERT_LT(b, dump->expectedBufferBytes.size());
            EXPECT_EQ(reservedSoFar[b], dump->expectedBufferBytes[b])
                << dump->backends[b].name << " compute buffer";
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Plans, EnginePlanTest, ::testing::ValuesIn(planCases()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(EnginePlans, AreRecorded) {
    EXPECT_FALSE(planCases().empty()) << "no plan dumps under " << LLAMAFIT_PLANS_DIR;
}

} // namespace
} // namespace llamafit
