#pragma once
// Compares LlamaFit's prediction (MemoryEstimate) with what the real llama-server logged
// (AllocationLog), quantity by quantity, and says which ones differ and by how much.
// Tolerances: model, KV, RS and output buffers must agree to llama.cpp's print precision
// (0.01 MiB for one printed line: the estimate is exact, the log rounds to 0.005, so a sum
// of n printed lines may be off by 0.005 per line plus 0.005); compute buffers within 5 %
// (the compute model is an approximation by design, llama-cpp-memory.md section 2.5; issue 10
// also counts how many are within 2 %, matrixstatistics.h). Per buffer type as llama.cpp names
// it, so a GPU run is compared per device (Vulkan0) and per host buffer (Vulkan_Host, CPU);
// context values and cache shapes exactly. Test support only; sizes in MiB.

#include "core/common/result.h"
#include "core/server/allocationlog.h"
#include "core/sizing/memoryestimate.h"

#include <string>
#include <vector>

namespace llamafit::test {

// One buffer type of one component, as compared: "compute Vulkan_Host: predicted 8.00, logged
// 36.02". The matrix statistics (matrixstatistics.h) count these over a whole matrix.
struct ComparedBuffer {
    Component component = Component::Model;
    std::string bufferType; // as llama.cpp names it: "CPU_Mapped", "Vulkan0", "Vulkan_Host", "CPU"
    bool host = false;      // a host buffer type (CPU*, *_Host): isHostBufferType
    double predictedMiB = 0;
    double loggedMiB = 0;
    bool withinTolerance = false; // the comparison's verdict: print precision, or 5 % for compute
    // |predicted - logged| within `fraction` of the logged size (at least the print precision).
    bool withinRelative(double fraction) const;
    // predicted / logged; 1 when both are zero, infinity when only the logged one is.
    double ratio() const;
};

struct ServerComparison {
    std::vector<std::string> mismatches; // "kv CPU: predicted 128.00 MiB, logged 120.00 MiB (tolerance 0.01)"
    std::string summary;                 // predicted/logged per component, for the run's output
    std::vector<ComparedBuffer> buffers; // every buffer type of every component, matched or not
    bool ok() const { return mismatches.empty(); }
};

ServerComparison compareWithServer(const MemoryEstimate& estimate, const AllocationLog& log);

// The verdict on one run of the integration matrix, live (tests/integration/realserver_test.cpp)
// or recorded (tests/unit/recorded/recordedruns_test.cpp): an estimate that refuses the settings
// must meet a server that failed to load; an estimate must meet a server that finished
// allocating, and then compareWithServer() decides.
struct RunVerdict {
    bool passed = false;
    std::string failure;                 // why not, for the test's message
    std::string summary;                 // compareWithServer's summary when it ran
    std::vector<ComparedBuffer> buffers; // compareWithServer's buffers when it ran
};

RunVerdict judgeServerRun(const Result<MemoryEstimate>& estimate, const AllocationLog& log);

} // namespace llamafit::test
