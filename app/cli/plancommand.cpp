// `llamafit-cli plan`: the estimate for -m MODEL and the llama-server flags, placed on a
// machine's memory pools, with the backend's view of free memory, the decode-speed bound and,
// for an APU, the BIOS split advice. The machine is --machine's, or else the one the app starts
// on (chooseStartMachine): the detected machine when discovery finds a GPU, the EVO-X2 profile
// when it does not; the output says which and why.

#include "app/cli/commands.h"
#include "app/cli/jsonoutput.h"
#include "app/cli/machinechoice.h"

#include "app/cli/planoutput.h"
#include "app/cli/sizingcommand.h"
#include "core/machine/carveoutchoices.h"
#include "core/machine/machinefrominventory.h"
#include "core/machine/machineprofile.h"
#include "core/machine/rpccluster.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"
#include "core/system/bandwidthprobe.h"
#include "core/system/benchmarkstore.h"
#include "core/system/deviceprobe.h"

#include <algorithm>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kPlanUsage =
    R"(usage: llamafit-cli plan [--json] -m MODEL [llama-server flags] [--machine ID|FILE.json]
                        [--carve-outs GiB,GiB,...] [--margin-mib N] [--fill TOKENS] [--bandwidth]
                        [--no-vulkan] [--no-nvml] [--proc-dir DIR] [--drm-dir DIR]
                        [--rpc HOST:PORT[=FREE_MiB],... [--server PATH]]
       llamafit-cli plan --set FILE.json [--json] [--machine ID|FILE.json] [--margin-mib N]
                        (several models at once: 'llamafit-cli plan --set x --help')

Places what llama-server 0.7.0 would allocate for MODEL on a machine's real memory pools: a
discrete GPU's VRAM, or an APU's BIOS carve-out and system RAM (one physical memory), with the
OS's own use, the prompt cache (--cache-ram) and context checkpoints (--ctx-checkpoints) that
grow at run time. Shows what the llama.cpp backend will report as free and why it differs,
the bandwidth bound on decode speed, and for an APU which BIOS split to choose.

  -m, --model MODEL      a GGUF file or a built-in card id ('llamafit-cli cards')
  llama-server flags     as for 'estimate' (-c, -np, -ctk, -ctv, -ngl, -lm, -cram, -ctxcp, ...)
  --machine ID|FILE      a built-in profile ('llamafit-cli machines') or a profile JSON file;
                         default: this machine as 'devices' finds it when it has a GPU, else
                         gmktec-evo-x2-64gb-32-32 (the seed's machine); the output says which
  --carve-outs LIST      BIOS carve-out sizes to compare, in GiB (default: the profile's list)
  --margin-mib N         headroom each pool must keep (default 1024, llama.cpp's --fit-target)
  --fill TOKENS          KV fill for the decode estimate (default: a full slot)
  --bandwidth            measure host memory bandwidth (about 0.3 s) for a detected CPU-only or
                         APU machine without a known figure
  --no-vulkan, --no-nvml, --proc-dir DIR, --drm-dir DIR
                         device discovery as in 'devices' (without --machine)
  --rpc HOST:PORT[=FREE_MiB],...
                         ggml-rpc-servers the model is split over: each joins the machine
                         as a host of its own (a pool as large as the free memory the server
                         reports: given with =FREE_MiB, else asked live through --server's
                         llama-server), before the machine's GPUs in -ts order. The plan adds
                         what crosses the network per token and the decode floor it sets at
                         1, 2.5 and 10 Gbit/s
  --llama-build bNNNN    the llama.cpp build to size for (default: the build that --server
                         PATH's --version names, else b11669, llama.cpp 0.7.0); an older
                         build's graph is built with the changes llama.cpp made up to it
                         (docs/engine.md)
  --json                 machine-readable output (stable fields; see docs)

Exit status: 0 planned (whether or not it fits: see "verdict"), 2 bad model, flag, setting or
machine profile (the message names it).
)";

Result<PlanResult> makePlan(const SizingRequest& request, const CliOptions& options) {
    Result<ChosenMachine> machine = chooseMachine(options);
    if (!machine) {
        return machine.error();
    }
    // --rpc servers (with their free memory, given or asked live) join the machine as hosts of
    // their own (rpccluster.h); any other --gpu would describe the machine's GPUs a second time.
    std::vector<RpcHost> rpcHosts;
    for (const GpuDevice& gpu : request.args.gpus) {
        if (gpu.backend != Backend::Rpc) {
            return makeError("cli.conflicting-options",
                             "--gpu/--gpu-igpu and --machine both describe the GPUs: "
                             "use one (the machine profile names its GPUs)");
        }
        rpcHosts.push_back(RpcHost{rpcEndpointOf(gpu.name).value_or(gpu.name), gpu.memoryBytes});
    }
    Result<PlacementOptions> placement = placementOptions(options);
    if (!placement) {
        return placement.error();
    }
    std::vector<std::uint64_t> carveOuts;
    if (const std::optional<std::string> list = options.value("--carve-outs")) {
        Result<std::vector<std::uint64_t>> sizes = parseCarveOutList(*list);
        if (!sizes) {
            return sizes.error();
        }
        carveOuts = *sizes;
    }
    std::optional<std::uint32_t> fill;
    if (const std::optional<std::string> text = options.value("--fill")) {
        Result<std::vector<std::uint32_t>> tokens = parseNumberList("--fill", *text);
        if (!tokens || tokens->size() != 1) {
            return tokens ? makeError("cli.bad-value", "--fill takes one number of tokens") : tokens.error();
        }
        fill = tokens->front();
    }

    PlanResult plan;
    plan.machine = withRpcHosts(machine->machine, rpcHosts);
    plan.chosenBecause = machine->because;
    Result<MemoryEstimate> estimate = estimateMemory(request.model.info, request.args.settings,
                                                     sizingGpus(plan.machine), request.companions);
    if (!estimate) {
        return estimate.error();
    }
    plan.estimate = *estimate;
    plan.usage =
        placeOnMachine(plan.estimate, request.args.settings, request.model.info, plan.machine, *placement);
    if (!rpcHosts.empty()) {
        Result<RpcTraffic> traffic =
            rpcTrafficPerToken(request.model.info, request.args.settings, sizingGpus(plan.machine));
        if (!traffic) {
            return traffic.error();
        }
        plan.rpcTraffic = *traffic;
        plan.usage.notes.push_back(
            "the decode bound reads every weight at this machine's bandwidth: the RPC hosts' own "
            "memory bandwidth is not known here");
    }
    for (std::size_t i = 0; i < std::max<std::size_t>(1, plan.machine.gpus.size()); ++i) {
        plan.backend.push_back(backendMemoryView(plan.machine, i));
    }
    if (plan.machine.bandwidthBytesPerSecond) {
        plan.decode = estimateDecodeSpeed(request.model.info, plan.estimate,
                                          *plan.machine.bandwidthBytesPerSecond, fill);
    }
    // The expected rate: this machine's stored llama-bench runs teach the efficiency, else
    // the public defaults (docs/speed.md); speed.source says which.
    plan.speedFilledTokens = fill.value_or(plan.estimate.context.nCtxSeq);
    plan.speed = predictMachineSpeed(request.model.info, plan.estimate, plan.machine, request.args.settings,
                                     BenchmarkStore().efficiencyFor(plan.machine, request.model.info.isMoe()),
                                     plan.speedFilledTokens);
    if (plan.machine.biosSplit) {
        Result<SplitAdvice> advice =
            adviseBiosSplit(request.model.info, request.args.settings, plan.machine, *placement, carveOuts);
        if (!advice) {
            return advice.error();
        }
        plan.advice = *advice;
    } else if (!carveOuts.empty()) {
        return makeError("cli.bad-value",
                         "--carve-outs needs an APU machine; '" + plan.machine.id + "' has no BIOS split");
    }
    return plan;
}

} // namespace

int runPlanCommand(const std::vector<std::string>& args, const CommandIo& io) {
    if (hasSetOption(args)) {
        return runPlanSetCommand(args, io);
    }
    const SizingCommand command{.name = "plan",
                                .usage = kPlanUsage,
                                .options = {{"--machine", true},
                                            {"--carve-outs", true},
                                            {"--margin-mib", true},
                                            {"--fill", true},
                                            {"--bandwidth"},
                                            {"--no-vulkan"},
                                            {"--no-nvml"},
                                            {"--proc-dir", true},
                                            {"--drm-dir", true}}};
    return runSizingCommand(args, io, command, [](const SizingRun& run) {
        Result<PlanResult> plan = makePlan(run.request, run.options);
        if (!plan) {
            return run.fail(plan.error());
        }
        if (run.json) {
            printJson(run.io.out, planJson(run.request.model, run.request.args, *plan));
        } else {
            printPlanText(run.io.out, run.request.model, run.request.args, *plan);
        }
        return kExitOk;
    });
}

} // namespace llamafit
