// The plan and record of one llama-bench run; see benchplan.h.
#include "core/system/benchplan.h"

#include "core/machine/speedmodel.h"
#include "core/server/benchprediction.h"
#include "core/sizing/estimator.h"
#include "core/system/benchmarkrun.h"
#include "core/system/benchmarkstore.h"
#include "core/system/llamatool.h"

#include <QDateTime>
#include <QFileInfo>

namespace llamafit {

Result<BenchPlan> planBench(BenchRequest request, Machine machine, const ModelInfo& model,
                            const BenchmarkStore& store) {
    if (Result<std::vector<std::string>> checked = buildBenchArgs(request); !checked) {
        return checked.error();
    }
    Result<MemoryEstimate> estimate =
        estimateMemory(model, benchEstimateSettings(request), sizingGpus(machine));
    if (!estimate) {
        return estimate.error();
    }
    // Worked out before the plan is built: GCC 12 at -O3 warns that a default-initialised efficiency
    // assigned afterwards "may be used uninitialized" (-Werror=maybe-uninitialized).
    SpeedEfficiency efficiency = store.efficiencyFor(machine, model.isMoe());
    BenchPlan plan{.request = std::move(request),
                   .machine = std::move(machine),
                   .model = model,
                   .estimate = std::move(*estimate),
                   .efficiency = std::move(efficiency),
                   .startedAt = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()};
    return plan;
}

BenchRecord benchRecordOf(const BenchPlan& plan, const BenchmarkRun& run) {
    const QFileInfo modelFile(QString::fromStdString(plan.request.modelPath));
    BenchRecord record;
    record.machineId = plan.machine.id;
    record.modelPath = modelFile.absoluteFilePath().toStdString();
    record.modelFileBytes = static_cast<std::uint64_t>(modelFile.size());
    if (!run.rows().empty()) {
        record.buildNumber = run.rows().front().buildNumber;
        record.buildCommit = run.rows().front().buildCommit;
    }
    record.backend = speedBackend(plan.machine);
    record.moe = plan.model.isMoe();
    record.startedAt = plan.startedAt;
    for (const QString& argument : run.arguments()) {
        record.arguments.push_back(argument.toStdString());
    }
    record.rows = run.rows();
    record.efficiencySource = plan.efficiency.description;
    record.predictions = predictBenchRows(record.rows, plan.model, plan.estimate,
                                          plan.machine.bandwidthBytesPerSecond.value_or(0),
                                          plan.machine.fp16Tflops, plan.efficiency);
    return record;
}

QString defaultLlamaBenchProgram(const QString& serverProgram) {
    return llamaToolProgram(QStringLiteral("llama-bench"), "LLAMAFIT_LLAMA_BENCH", serverProgram);
}

} // namespace llamafit
