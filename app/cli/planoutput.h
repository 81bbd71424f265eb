#pragma once
// The output of `llamafit-cli plan` (text and --json) and `machines`: a model's estimate placed
// on a machine's memory pools, the backend's own view of free memory, the decode-speed bound and,
// for an APU, the BIOS split advice. JSON is a STABLE interface (fields only added; bytes as
// integers):
//   plan: {model, machine{id, name, os, apu, chosen_because}, settings.args, verdict, margin_bytes,
//     pools[{name, kind, capacity_bytes (null if unknown), at_load_bytes, up_to_bytes,
//       llama_at_load_bytes, headroom_bytes, worst_headroom_bytes, unbounded, verdict,
//       terms[{label, bytes, up_to, unbounded, reservation, rule}]}],
//     backend[{device, reported_total_bytes, reported_free_bytes, free_observed, plan_limit_bytes,
//       explanation}], decode{bandwidth_bytes_per_second, filled_tokens, weight_bytes_per_token,
//       kv_bytes_per_token, rs_bytes_per_token, tokens_per_second} or null,
//     speed{decode_tps_bound, decode_tps_expected, prompt_tps_expected, ..., source} (speedoutput.h),
//     bios_split{splits[{carve_out_bytes, system_bytes, current, verdict, gpu_verdict,
//       gpu_headroom_bytes, host_verdict, host_headroom_bytes, host_worst_headroom_bytes}],
//       recommended_carve_out_bytes (or null), reason} or null,
//     notes[], machine_notes[], machine_sources[], estimate{... as `estimate --json`}}
//   machines (machineJson, Report form, core/machine/machinejson.h):
//     {machines[{id, name, os, apu, gpus[], pools[...], bandwidth_bytes_per_second,
//     bios_split, sources[], notes[]}]}

#include "app/cli/jsonoutput.h"
#include "app/cli/modelsource.h"
#include "core/machine/backendreport.h"
#include "core/machine/bandwidth.h"
#include "core/machine/biossplitadvisor.h"
#include "core/machine/poolusage.h"
#include "core/machine/speedmodel.h"
#include "core/sizing/rpctraffic.h"

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct PlanResult {
    Machine machine;
    std::string chosenBecause; // "--machine ID", or why the detected / EVO-X2 machine was chosen
    MemoryEstimate estimate;
    PoolUsage usage;
    std::vector<BackendMemoryView> backend;
    std::optional<DecodeSpeedEstimate> decode;
    std::optional<SpeedPrediction> speed; // the decode bound x this machine's efficiency (speedmodel.h)
    std::uint32_t speedFilledTokens = 0;
    std::optional<SplitAdvice> advice;
    // --rpc: what crosses the network per decoded token, and the decode bound with its floor.
    std::optional<RpcTraffic> rpcTraffic;
};

// One pool of `pools[]` (also `plan --set`'s pools).
Json poolLoadJson(const PoolLoad& load);
// "    headroom N MiB at load, M MiB when full -> fits" under a pool's table (plan and plan --set).
void printPoolHeadroom(std::ostream& out, const PoolLoad& load);

Json planJson(const LoadedModel& model, const ParsedServerArgs& args, const PlanResult& plan);
void printPlanText(std::ostream& out, const LoadedModel& model, const ParsedServerArgs& args,
                   const PlanResult& plan);

} // namespace llamafit
