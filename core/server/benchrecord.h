#pragma once
// BenchRecord: one llama-bench run as LlamaFit stores it (core/system/benchmarkstore), with the
// speed model's prediction for every row next to the measured rate, so that later estimates can
// learn this machine's efficiency (core/machine/speedefficiency.h) and the chart can show
// measured against predicted. One file per machine, model file and llama.cpp build holds the
// runs in the order they were made. Pure JSON in and out.
//
// Error code: bench.bad-record (the file is not a LlamaFit benchmark file, or a field has the
// wrong type; the message names it).

#include "core/common/result.h"
#include "core/machine/speedefficiency.h"
#include "core/server/benchrun.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct BenchRowPrediction {
    double decodeTpsBound = 0;               // tg rows: bandwidth bound at the row's depth
    double decodeTpsExpected = 0;            // tg rows
    std::optional<double> promptTpsExpected; // pp rows
    double promptTpsBound = 0;               // pp rows: the compute bound (efficiency 1); 0 = unknown
    bool operator==(const BenchRowPrediction&) const = default;
};

struct BenchRecord {
    std::string machineId;
    std::string modelPath;
    std::uint64_t modelFileBytes = 0;
    std::uint32_t buildNumber = 0; // llama.cpp build (llama-bench's build_number)
    std::string buildCommit;
    Backend backend = Backend::Cpu; // the backend the speed model took for this run
    bool moe = false;
    std::string startedAt;              // ISO 8601, UTC
    std::vector<std::string> arguments; // llama-bench's arguments as run
    std::vector<BenchRow> rows;
    std::vector<BenchRowPrediction> predictions; // one per row, or empty
    std::string efficiencySource;                // which efficiency the predictions used
    bool operator==(const BenchRecord&) const = default;
};

// The file: {"format":"llamafit-benchmarks","version":1,"runs":[...]}.
std::string benchRecordsToJson(const std::vector<BenchRecord>& records);
Result<std::vector<BenchRecord>> benchRecordsFromJson(std::string_view text);

// The rows of `records` as learning samples: tg rows against their decode bound, pp rows
// against their compute bound.
std::vector<EfficiencySample> efficiencySamples(const std::vector<BenchRecord>& records);

} // namespace llamafit
