#pragma once
// BenchPlan: what one llama-bench run of the planned launch is compared against, fixed when
// the run starts -- the request, the machine the prediction is for, the estimate of
// llama-bench's own context, the efficiency the expected rates use -- and the BenchRecord a
// finished run becomes. The one home of these steps for `llamafit-cli bench` and the GUI's
// benchmark dialog. Also where llama-bench is found when the user names no program.
// Thread: any. Units: bytes, tokens per second.

#include "core/common/result.h"
#include "core/machine/memorypools.h"
#include "core/machine/speedefficiency.h"
#include "core/model/modelinfo.h"
#include "core/server/benchrecord.h"
#include "core/server/benchrun.h"
#include "core/sizing/memoryestimate.h"

#include <QString>

#include <string>

namespace llamafit {

class BenchmarkRun;
class BenchmarkStore;

struct BenchPlan {
    BenchRequest request;
    Machine machine;
    ModelInfo model;
    MemoryEstimate estimate; // of llama-bench's context (benchEstimateSettings)
    SpeedEfficiency efficiency;
    std::string startedAt; // ISO 8601, UTC
};

// Checks the request (buildBenchArgs: bench.bad-request, bench.unsupported-setting), sizes
// llama-bench's context on `machine` (settings.* when llama.cpp would refuse it) and takes the
// efficiency `store` has learned for the machine (else the public defaults).
Result<BenchPlan> planBench(BenchRequest request, Machine machine, const ModelInfo& model,
                            const BenchmarkStore& store);

// The record of a run of `plan` that ended in Finished: its rows with the speed model's
// prediction for each, the arguments it ran with and the build llama-bench reported.
BenchRecord benchRecordOf(const BenchPlan& plan, const BenchmarkRun& run);

// The llama-bench to run: $LLAMAFIT_LLAMA_BENCH when set, else the llama-bench next to
// `serverProgram` (or next to $LLAMAFIT_LLAMA_SERVER when `serverProgram` is empty: llama.cpp
// ships both in one folder, "llama-bench.exe" beside "llama-server.exe" on Windows), else
// llama-bench on the PATH.
QString defaultLlamaBenchProgram(const QString& serverProgram);

} // namespace llamafit
