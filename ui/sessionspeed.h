#pragma once
// SessionSpeed: the speed model's decode figures (core/machine/speedmodel.h) for the plan a
// SizingSession holds -- its model, estimate, settings, machine and bandwidth (the user's
// override, else the machine's figure) -- with the efficiency learned from this machine's stored
// llama-bench runs (BenchmarkStore::efficiencyFor), else the public defaults. One computation for
// the advice panel's decode label, the memory chart's tooltips and the live view (which copies
// the efficiency at Starting), so the three cannot drift apart.
// Owns: the efficiency, read from disk once per machine, dense/MoE kind and change of the
// machine's stored runs (a slider drag recomputes every step; the store is files). Does not own the session
// (it must outlive this). Thread: GUI. Units: tokens per second, tokens.

#include "core/machine/speedmodel.h"
#include "core/system/benchmarkstore.h"

#include <QString>

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

namespace llamafit {

class SizingSession;

class SessionSpeed {
  public:
    explicit SessionSpeed(const SizingSession* session, BenchmarkStore store = BenchmarkStore());

    // Where the efficiency is learned from (default: BenchmarkStore's own folder).
    void setStore(BenchmarkStore store);
    const BenchmarkStore& store() const { return m_store; }
    // The efficiency for the session's machine and model kind (cached per machine id and MoE).
    const SpeedEfficiency& efficiency();
    // The prediction at `filledTokens` per slot (default: a full slot, as `estimate --json`);
    // nullopt while the estimate is an error or there is no bandwidth figure.
    std::optional<SpeedPrediction> predict(std::optional<std::uint32_t> filledTokens = std::nullopt);

  private:
    const SizingSession* m_session;
    BenchmarkStore m_store;
    using EfficiencyKey = std::tuple<std::string, bool, qint64>; // machine id, MoE, store's time
    std::optional<EfficiencyKey> m_efficiencyKey;
    SpeedEfficiency m_efficiency;
};

// The tooltip line of the memory chart's weights, KV and RS segments (what each decoded token
// reads): "Decode speed with a full 4096-token slot: ≤ 98.1 t/s bound · ~54.0 t/s expected
// (public defaults for CPU, dense (docs/speed.md))", or why there is none.
QString decodeSpeedToolTipLine(const std::optional<SpeedPrediction>& prediction, std::uint32_t slotTokens);

// Where an efficiency comes from, for people, in the app's language (the core's description is
// English): "public defaults for Vulkan, MoE (docs/speed.md)", "learned from 3 live runs on this
// machine". The one home of that wording in the GUI.
QString efficiencySourceText(const SpeedEfficiency& efficiency);

} // namespace llamafit
