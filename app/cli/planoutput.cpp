// Text and JSON of `plan` and `machines`; see planoutput.h.
#include "app/cli/planoutput.h"
#include "app/cli/ruletext.h"
#include "app/cli/speedoutput.h"

#include "app/cli/advicetext.h"
#include "app/cli/commandline.h"
#include "app/cli/textoutput.h"
#include "app/cli/texttable.h"

#include <cstdio>
#include <ostream>

namespace llamafit {

namespace {

using Align = TextTable::Align;

Json adviceJson(const SplitAdvice& advice) {
    Json splits = Json::array();
    for (const SplitEvaluation& split : advice.splits) {
        splits.push_back({{"carve_out_bytes", split.carveOutBytes},
                          {"system_bytes", split.systemBytes},
                          {"current", split.current},
                          {"verdict", fitVerdictName(split.verdict)},
                          {"gpu_verdict", fitVerdictName(split.gpuSide.verdict)},
                          {"gpu_headroom_bytes", split.gpuSide.headroomBytes},
                          {"host_verdict", fitVerdictName(split.hostSide.verdict)},
                          {"host_headroom_bytes", split.hostSide.headroomBytes},
                          {"host_worst_headroom_bytes", split.hostSide.worstHeadroomBytes}});
    }
    return {{"splits", std::move(splits)},
            {"recommended_carve_out_bytes",
             advice.recommended ? Json(advice.splits[*advice.recommended].carveOutBytes) : Json(nullptr)},
            {"reason", biosSplitReason(advice)}};
}

void printPool(std::ostream& out, const PoolLoad& load) {
    out << load.poolName << ": "
        << (load.capacityKnown ? formatMiB(load.capacityBytes) + " MiB" : std::string("size unknown"))
        << "\n";
    TextTable table({"term", "MiB", ""}, {Align::Left, Align::Right, Align::Left});
    for (const PoolTerm& term : load.terms) {
        table.addRow(
            {poolTermLabel(term), term.unbounded ? "no limit" : formatMiB(term.bytes),
             term.upTo ? "up to, grows at run time" : (term.reservation ? "before llama-server" : "")});
    }
    table.addRow({"= at load", formatMiB(load.atLoadBytes), ""});
    if (load.upToBytes != load.atLoadBytes || load.unbounded) {
        table.addRow({"= at most", load.unbounded ? "no limit" : formatMiB(load.upToBytes), ""});
    }
    table.print(out, "    ");
    printPoolHeadroom(out, load);
}

bool poolInUse(const PoolLoad& load) {
    return load.llamaAtLoadBytes > 0 || load.upToBytes > load.atLoadBytes;
}

void printAdvice(std::ostream& out, const SplitAdvice& advice) {
    out << "\nBIOS split (carve-out / system RAM), margin included\n";
    TextTable table({"VRAM GiB", "system GiB", "GPU side", "GPU headroom MiB", "system side",
                     "system left MiB", "when full MiB", ""},
                    {Align::Right, Align::Right, Align::Left, Align::Right, Align::Left, Align::Right,
                     Align::Right, Align::Left});
    for (std::size_t i = 0; i < advice.splits.size(); ++i) {
        const SplitEvaluation& split = advice.splits[i];
        std::string mark = split.current ? "current" : "";
        if (advice.recommended && *advice.recommended == i) {
            mark += mark.empty() ? "recommended" : ", recommended";
        }
        table.addRow({formatGiB(split.carveOutBytes), formatGiB(split.systemBytes),
                      std::string(fitVerdictName(split.gpuSide.verdict)),
                      formatSignedMiB(split.gpuSide.headroomBytes),
                      std::string(fitVerdictName(split.hostSide.verdict)),
                      formatSignedMiB(split.hostSide.headroomBytes),
                      formatSignedMiB(split.hostSide.worstHeadroomBytes), mark});
    }
    table.print(out);
    out << "  " << biosSplitReason(advice) << "\n";
}

} // namespace

void printPoolHeadroom(std::ostream& out, const PoolLoad& load) {
    if (load.capacityKnown) {
        out << "    headroom " << formatSignedMiB(load.headroomBytes) << " MiB at load";
        if (load.upToBytes != load.atLoadBytes) {
            out << ", " << formatSignedMiB(load.worstHeadroomBytes) << " MiB when full";
        }
        out << " -> " << fitVerdictName(load.verdict) << "\n";
    } else {
        out << "    not checked: no source gave this pool's size\n";
    }
}

Json poolLoadJson(const PoolLoad& load) {
    Json terms = Json::array();
    for (const PoolTerm& term : load.terms) {
        terms.push_back({{"label", poolTermLabel(term)},
                         {"bytes", term.bytes},
                         {"up_to", term.upTo},
                         {"unbounded", term.unbounded},
                         {"reservation", term.reservation},
                         {"rule", ruleText(term.rule)}});
    }
    return {{"name", load.poolName},
            {"kind", poolKindName(load.kind)},
            {"capacity_bytes", load.capacityKnown ? Json(load.capacityBytes) : Json(nullptr)},
            {"at_load_bytes", load.atLoadBytes},
            {"up_to_bytes", load.upToBytes},
            {"llama_at_load_bytes", load.llamaAtLoadBytes},
            {"headroom_bytes", load.headroomBytes},
            {"worst_headroom_bytes", load.worstHeadroomBytes},
            {"unbounded", load.unbounded},
            {"verdict", fitVerdictName(load.verdict)},
            {"terms", std::move(terms)}};
}

namespace {

// `plan --rpc`'s traffic: every device change of the graph and the network floor per link speed.
Json rpcTrafficJson(const RpcTraffic& traffic, const std::optional<DecodeSpeedEstimate>& decode) {
    Json crossings = Json::array();
    for (const DeviceCrossing& crossing : traffic.crossings) {
        crossings.push_back({{"from", crossing.from},
                             {"to", crossing.to},
                             {"what", crossing.what},
                             {"bytes_per_token", crossing.bytesPerToken},
                             {"network_hops", crossing.networkHops}});
    }
    Json links = Json::array();
    for (const double bits : kLinkBitsPerSecond) {
        const double seconds = networkSecondsPerToken(traffic, bits);
        links.push_back(
            {{"bits_per_second", bits},
             {"seconds_per_token", seconds},
             {"decode_tokens_per_second",
              decode ? Json(withNetworkFloor(decode->tokensPerSecond, seconds)) : Json(nullptr)}});
    }
    return {{"network_bytes_per_token", traffic.networkBytesPerToken},
            {"crossings", std::move(crossings)},
            {"links", std::move(links)}};
}

void printRpcTraffic(std::ostream& out, const RpcTraffic& traffic,
                     const std::optional<DecodeSpeedEstimate>& decode) {
    out << "Network   " << traffic.networkBytesPerToken / 1024.0 << " KiB per token cross the network";
    for (const DeviceCrossing& crossing : traffic.crossings) {
        if (crossing.networkHops > 0) {
            out << "\n            " << crossing.from << " -> " << crossing.to << " (" << crossing.what
                << "): " << crossing.bytesPerToken / 1024.0 << " KiB"
                << (crossing.networkHops > 1 ? " x2 via this host" : "");
        }
    }
    out << "\n";
    for (const double bits : kLinkBitsPerSecond) {
        const double seconds = networkSecondsPerToken(traffic, bits);
        char line[160];
        std::snprintf(line, sizeof line, "          at %4.1f Gbit/s: +%.3f ms per token", bits / 1e9,
                      seconds * 1e3);
        out << line;
        if (decode) {
            std::snprintf(line, sizeof line, ", decode at most %.1f t/s",
                          withNetworkFloor(decode->tokensPerSecond, seconds));
            out << line;
        }
        out << "\n";
    }
}

} // namespace

Json planJson(const LoadedModel& model, const ParsedServerArgs& args, const PlanResult& plan) {
    Json json;
    json["model"] = modelJson(model);
    json["machine"] = {{"id", plan.machine.id},
                       {"name", plan.machine.name},
                       {"os", osKindName(plan.machine.os)},
                       {"apu", isApu(plan.machine)},
                       {"chosen_because", plan.chosenBecause}};
    json["settings"] = {{"args", toServerArgs(args.settings)}};
    json["verdict"] = fitVerdictName(plan.usage.verdict);
    json["margin_bytes"] = plan.usage.marginBytes;
    Json pools = Json::array();
    for (const PoolLoad& load : plan.usage.pools) {
        pools.push_back(poolLoadJson(load));
    }
    json["pools"] = std::move(pools);
    Json backend = Json::array();
    for (const BackendMemoryView& view : plan.backend) {
        backend.push_back({{"device", view.device},
                           {"reported_total_bytes", view.reportedTotalBytes},
                           {"reported_free_bytes", view.reportedFreeBytes},
                           {"free_observed", view.freeObserved},
                           {"plan_limit_bytes", view.planLimitBytes},
                           {"explanation", view.explanation}});
    }
    json["backend"] = std::move(backend);
    json["decode"] = nullptr;
    if (plan.decode) {
        const DecodeSpeedEstimate& d = *plan.decode;
        json["decode"] = {{"bandwidth_bytes_per_second", *plan.machine.bandwidthBytesPerSecond},
                          {"filled_tokens", d.filledTokens},
                          {"weight_bytes_per_token", d.weightBytesPerToken},
                          {"kv_bytes_per_token", d.kvBytesPerToken},
                          {"rs_bytes_per_token", d.rsBytesPerToken},
                          {"tokens_per_second", d.tokensPerSecond}};
    }
    json["rpc_traffic"] = plan.rpcTraffic ? rpcTrafficJson(*plan.rpcTraffic, plan.decode) : Json(nullptr);
    json["speed"] = speedJson(plan.speed, plan.speedFilledTokens,
                              plan.speed ? std::string() : "no bandwidth figure for " + plan.machine.id);
    json["bios_split"] = plan.advice ? adviceJson(*plan.advice) : Json(nullptr);
    json["notes"] = plan.usage.notes;
    json["machine_notes"] = plan.machine.notes;
    json["machine_sources"] = plan.machine.sources;
    json["estimate"] = estimateJson(model, args, plan.estimate);
    return json;
}

void printPlanText(std::ostream& out, const LoadedModel& model, const ParsedServerArgs& args,
                   const PlanResult& plan) {
    const std::vector<std::string> serverArgs = toServerArgs(args.settings);
    const ResolvedContext& c = plan.estimate.context;
    out << "Model     " << modelLine(model) << "\n";
    out << "Machine   " << plan.machine.name << " (" << plan.machine.id << ")\n";
    if (!plan.chosenBecause.empty()) {
        out << "          chosen: " << plan.chosenBecause << "\n";
    }
    out << "Flags     " << (serverArgs.empty() ? "(llama-server defaults)" : joinArgs(serverArgs)) << "\n";
    out << "Context   n_ctx = " << c.nCtx << ", n_ctx_seq = " << c.nCtxSeq << ", n_seq_max = " << c.nSeqMax
        << ", flash_attn = " << (c.flashAttention ? "on" : "off") << "\n\n";

    out << "Memory pools (margin " << formatMiB(plan.usage.marginBytes)
        << " MiB, like llama.cpp's --fit-target)\n";
    for (const PoolLoad& load : plan.usage.pools) {
        if (poolInUse(load) || load.kind != PoolKind::ApuShared) {
            out << "  ";
            printPool(out, load);
        }
    }
    for (const BackendMemoryView& view : plan.backend) {
        out << "\nBackend   " << view.explanation << ".\n";
    }
    if (plan.decode) {
        char line[160];
        std::snprintf(line, sizeof line, "Decode    at most %.1f t/s: %.1f GB/s / %s MiB read per token",
                      plan.decode->tokensPerSecond,
                      static_cast<double>(*plan.machine.bandwidthBytesPerSecond) / 1e9,
                      formatMiB(plan.decode->totalBytesPerToken).c_str());
        out << line << " (active weights " << formatMiB(plan.decode->weightBytesPerToken) << " + KV at "
            << plan.decode->filledTokens << " tokens " << formatMiB(plan.decode->kvBytesPerToken) << " + RS "
            << formatMiB(plan.decode->rsBytesPerToken) << ")\n";
    }
    if (plan.rpcTraffic) {
        printRpcTraffic(out, *plan.rpcTraffic, plan.decode);
    }
    printSpeedText(out, plan.speed, plan.speedFilledTokens);
    if (plan.advice) {
        printAdvice(out, *plan.advice);
    }
    out << "\nVerdict   " << fitVerdictName(plan.usage.verdict) << "\n";
    if (!plan.usage.notes.empty() || !plan.machine.notes.empty()) {
        out << "Notes\n";
        for (const std::string& note : plan.usage.notes) {
            out << "  - " << note << "\n";
        }
        for (const std::string& note : plan.machine.notes) {
            out << "  - " << note << "\n";
        }
    }
    printFlagLists(out, args);
}

} // namespace llamafit
