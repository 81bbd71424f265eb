#pragma once
// BenchmarkStore: the llama-bench runs made on this machine, and the live llama-server runs long
// enough to learn from, kept so that estimates learn the machine's real efficiency
// (core/machine/speedefficiency.h) and the benchmark dialog can show earlier runs. One JSON file
// (core/server/benchrecord.h) per machine, model file and llama.cpp build:
// <folder>/<machine>/<model file stem>-<size>-<path hash>-b<build>.json, and one per machine for
// the live runs (core/server/liverunrecord.h): <folder>/<machine>/live-runs.json, the newest
// kMaxStoredLiveRuns. Written atomically (core/common/atomicfile.h), runs appended in order. The folder
// defaults to <QStandardPaths::GenericDataLocation>/LlamaFit/benchmarks (~/.local/share/LlamaFit/benchmarks
// on Linux), one folder for the GUI and llamafit-cli.
// Used by `llamafit-cli bench/plan/estimate` and the GUI. Thread: any, one object per thread.
//
// Error codes: bench.store-unwritable (the folder cannot be made or the file written: names the
// path), bench.bad-record (an existing file does not parse; it is left untouched and named).

#include "core/common/result.h"
#include "core/machine/memorypools.h"
#include "core/server/benchrecord.h"
#include "core/server/liverunrecord.h"

#include <QDateTime>
#include <QString>

#include <string>
#include <vector>

namespace llamafit {

class BenchmarkStore {
  public:
    explicit BenchmarkStore(QString folder = {});

    QString folder() const { return m_folder; }
    QString filePath(const BenchRecord& record) const;

    // Appends the run to its file; returns the file's path.
    Result<QString> append(const BenchRecord& record);
    // The runs stored for the record's machine, model file and build (empty when none).
    Result<std::vector<BenchRecord>> load(const BenchRecord& key) const;
    // Every run stored for a machine, all models and builds; files that do not parse are
    // skipped and named in `problems`.
    std::vector<BenchRecord> loadMachine(const std::string& machineId,
                                         std::vector<std::string>* problems = nullptr) const;

    // Appends a live run to its machine's file, dropping the oldest beyond kMaxStoredLiveRuns;
    // returns the file's path.
    Result<QString> appendLiveRun(const LiveRunRecord& record);
    QString liveRunsPath(const std::string& machineId) const;
    // The live runs stored for a machine (empty when none).
    Result<std::vector<LiveRunRecord>> loadLiveRuns(const std::string& machineId) const;

    // The efficiency for estimates on `machine`: learned from its stored llama-bench and live
    // runs of the same backend and dense/MoE kind, else the public defaults (speedefficiency.h).
    // A live-run file that does not parse is left out (and left untouched).
    SpeedEfficiency efficiencyFor(const Machine& machine, bool moe) const;

    static constexpr std::size_t kMaxStoredLiveRuns = 200;

    // What a live run is stored under, for `launch` and the GUI's live view alike: the machine,
    // the model file (path and size as on disk now), the backend and kind the speed model took,
    // when the run started (now is its end), and the efficiency it was compared with. Its
    // figures come from finishLiveRun.
    static LiveRunRecord liveRunIdentity(const std::string& machineId, Backend backend,
                                         const std::string& modelPath, bool moe, const QDateTime& startedAt,
                                         const SpeedEfficiency& efficiency);

  private:
    QString m_folder;
};

} // namespace llamafit
