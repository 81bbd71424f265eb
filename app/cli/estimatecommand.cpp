// `llamafit-cli estimate`: the memory llama-server would allocate for -m MODEL and the
// given llama-server flags, per device and component.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/projectionverify.h"
#include "app/cli/sizingcommand.h"
#include "app/cli/speedoutput.h"
#include "app/cli/textoutput.h"
#include "core/sizing/estimator.h"

#include <charconv>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kEstimateUsage =
    R"(usage: llamafit-cli estimate [--json] -m MODEL [llama-server flags] [--gpu NAME=MiB ...]
                             [--rpc HOST:PORT[=FREE_MiB],...] [--server PATH]

Predicts the buffers llama-server 0.7.0 allocates for MODEL with the given flags: model
weights, KV cache, recurrent state (RS), output and compute buffers, per device, in MiB
with two decimals like llama-server -lv 4 prints them, plus LlamaFit's overhead allowance
(memory outside llama.cpp's buffers; no log line reports it).

  -m, --model MODEL      a GGUF file (any part of a split model) or a built-in card id
                         ('llamafit-cli cards' lists them)
  llama-server flags     -c, -np, -kvu/-no-kvu, -ctk, -ctv, -fa, -b, -ub, -ngl, --swa-full,
                         -nkvo, -ts, -ot, -cmoe, -ncmoe, -lm, -nr, --rpc, --lora,
                         --spec-type change the estimate;
                         every other llama-server 0.7.0 flag is accepted and listed
  -md FILE|CARD-ID       a draft model, loaded with its own context, owner "draft-model":
                         the target's -c, -np, -b and -fa; -ctkd/-ctvd (f16 unless given; -ctk
                         and -ctv do not reach it), --spec-draft-n-ubatch (else -ub), -ngld
  --mmproj FILE          a vision projector (gemma3, qwen2vl_merger): its weights and the
                         compute buffer of its warm-up image, owner "mmproj"; with
                         --no-mmproj-offload (or no --gpu) on the CPU, else on the first GPU;
                         --image-max-tokens shrinks a Qwen-VL warm-up image, -fa off grows it
  --gpu [BACKEND:]NAME=MiB
                         a GPU to place layers on (repeatable; BACKEND cuda, vulkan, rocm,
                         metal; 'cuda=8192' names it CUDA0 like llama.cpp). No --gpu: CPU only
  --gpu ...=MiB,storage-mib=N,alloc-mib=N
                         its Vulkan limits (maxStorageBufferRange, maxMemoryAllocationSize):
                         bigger weights stay on the CPU, bigger ops run there (lavapipe: 128)
  --gpu-igpu ...         the same for an integrated GPU sharing host memory
  --rpc HOST:PORT[=FREE_MiB],...
                         ggml-rpc-servers to split over; their buffers are RPC0[HOST:PORT].
                         With =FREE_MiB (or --gpu rpc:HOST:PORT=MiB) a server is planned
                         offline with that free memory (ggml-rpc-server prints it at start:
                         'CPU: ... (24105 MiB, 24105 MiB free)'); without, it is asked live
                         through the installed llama-server (--server PATH, default
                         $LLAMAFIT_LLAMA_SERVER, else llama-server on the PATH), and a server
                         not listening is named. llama.cpp puts the --rpc servers before the
                         local GPUs, and -ts follows that order: '--rpc A=24105,B=24105 --gpu
                         cuda=8192 -ts 1,1,2' gives A, B and CUDA0 a quarter, a quarter and half
  --gpu rpc:HOST:PORT=MiB
                         the free memory of an RPC server that --rpc names
  --bandwidth-gbs N      memory bandwidth (GB/s) for the speed figures (speed.* in --json, see
                         docs/speed.md); without it they are null ('plan' takes the machine's)
  --fp16-tflops N        the device's FP16 peak, for the prompt-processing figure
  --server PATH          the llama-server that will run it: its --version gives the build
                         to size for, and it asks the --rpc servers without =FREE_MiB
  --llama-build bNNNN    the llama.cpp build to size for (default: the build that --server
                         PATH's --version names, else b11669, llama.cpp 0.7.0); an older
                         build's graph is built with the changes llama.cpp made up to it
                         (docs/engine.md)
  --json                 machine-readable output (stable fields; see docs)
  --verify               also run the installed llama.cpp's own projection (llama-fit-params
                         --fit-print on) and print per device "llama.cpp bNNNN projects X MiB,
                         LlamaFit Y MiB", flagging differences over 1 % (text output only)
  --llama-fit-params PATH
                         the llama-fit-params --verify runs (default: $LLAMAFIT_LLAMA_FIT_PARAMS,
                         else the one on the PATH)

Exit status: 0 estimated, 2 bad model, flag or setting, or an --rpc server that could not be
asked (the message names it).
)";

// The speed figures for the estimate with public-default efficiencies (no machine here): the
// backend is the first --gpu's, else the CPU.
Result<std::optional<SpeedPrediction>> speedFor(const SizingRun& run, const MemoryEstimate& estimate) {
    Result<std::optional<double>> bandwidth = positiveNumberOption(run.options, "--bandwidth-gbs");
    Result<std::optional<double>> tflops = positiveNumberOption(run.options, "--fp16-tflops");
    if (!bandwidth || !tflops) {
        return bandwidth ? tflops.error() : bandwidth.error();
    }
    const ModelInfo& model = run.request.model.info;
    if (!*bandwidth) {
        return std::optional<SpeedPrediction>();
    }
    const Backend backend =
        run.request.args.gpus.empty() ? Backend::Cpu : run.request.args.gpus.front().backend;
    const SpeedInputs inputs = speedInputs(model, estimate, static_cast<std::uint64_t>(**bandwidth * 1e9),
                                           *tflops, run.request.args.settings.ubatchTokens);
    return std::optional<SpeedPrediction>(
        predictSpeed(inputs, defaultSpeedEfficiency(backend, model.isMoe())));
}

} // namespace

int runEstimateCommand(const std::vector<std::string>& args, const CommandIo& io) {
    const SizingCommand command{
        .name = "estimate",
        .usage = kEstimateUsage,
        .options = {
            {"--verify"}, {"--llama-fit-params", true}, {"--bandwidth-gbs", true}, {"--fp16-tflops", true}}};
    return runSizingCommand(args, io, command, [](const SizingRun& run) {
        const SizingRequest& request = run.request;
        Result<MemoryEstimate> estimate =
            estimateMemory(request.model.info, request.args.settings, request.args.gpus, request.companions);
        if (!estimate) {
            return run.fail(estimate.error());
        }
        Result<std::optional<SpeedPrediction>> speed = speedFor(run, *estimate);
        if (!speed) {
            return run.fail(speed.error());
        }
        const std::uint32_t filled = estimate->context.nCtxSeq;
        const std::string noSpeed = "give --bandwidth-gbs for the speed figures";
        if (run.json) {
            Json json = estimateJson(request.model, request.args, *estimate);
            json["llama_build"] = run.llamaBuild;
            json["sized_for"] = sizedForText(run.llamaBuild);
            json["speed"] = speedJson(*speed, filled, noSpeed);
            printJson(run.io.out, json);
        } else {
            printEstimateText(run.io.out, request.model, request.args, *estimate);
            run.io.out << "Sized for llama.cpp " << sizedForText(run.llamaBuild) << "\n";
            printSpeedText(run.io.out, *speed, filled);
            if (run.options.has("--verify")) {
                return verifyProjection(run);
            }
        }
        return kExitOk;
    });
}

} // namespace llamafit
