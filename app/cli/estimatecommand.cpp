// `llamafit-cli estimate`: the memory llama-server would allocate for -m MODEL and the
// given llama-server flags, per device and component.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/projectionverify.h"
#include "app/cli/sizingcommand.h"
#include "app/cli/textoutput.h"
#include "core/gguf/ggufreader.h"
#include "core/model/loraadapter.h"
#include "core/sizing/estimator.h"

#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kUsage =
    R"(usage: llamafit-cli estimate [--json] -m MODEL [llama-server flags] [--gpu NAME=MiB ...]
                             [--rpc HOST:PORT,... --gpu rpc:HOST:PORT=MiB ...]

Predicts the buffers llama-server 0.7.0 allocates for MODEL with the given flags: model
weights, KV cache, recurrent state (RS), output and compute buffers, per device, in MiB
with two decimals like llama-server -lv 4 prints them, plus LlamaFit's overhead allowance
(memory outside llama.cpp's buffers; no log line reports it).

  -m, --model MODEL      a GGUF file (any part of a split model) or a built-in card id
                         ('llamafit-cli cards' lists them)
  llama-server flags     -c, -np, -kvu/-no-kvu, -ctk, -ctv, -fa, -b, -ub, -ngl, --swa-full,
                         -nkvo, -ts, -ot, -cmoe, -ncmoe, -lm, -nr, --rpc change the estimate;
                         every other llama-server 0.7.0 flag is accepted and listed
  --gpu [BACKEND:]NAME=MiB
                         a GPU to place layers on (repeatable; BACKEND cuda, vulkan, rocm,
                         metal; 'cuda=8192' names it CUDA0 like llama.cpp). No --gpu: CPU only
  --gpu ...=MiB,storage-mib=N,alloc-mib=N
                         its Vulkan limits (maxStorageBufferRange, maxMemoryAllocationSize):
                         bigger weights stay on the CPU, bigger ops run there (lavapipe: 128)
  --gpu-igpu ...         the same for an integrated GPU sharing host memory
  --gpu rpc:HOST:PORT=MiB
                         the free memory of an RPC server that --rpc names (ggml-rpc-server
                         prints it at start: 'CPU: ... (24105 MiB, 24105 MiB free)'); its
                         buffers are RPC0[HOST:PORT]. llama.cpp puts the --rpc servers before
                         the local GPUs, and -ts follows that order: '--rpc A,B --gpu cuda=8192
                         -ts 1,1,2' gives A, B and CUDA0 a quarter, a quarter and half
  --json                 machine-readable output (stable fields; see docs)
  --verify               also run the installed llama.cpp's own projection (llama-fit-params
                         --fit-print on) and print per device "llama.cpp bNNNN projects X MiB,
                         LlamaFit Y MiB", flagging differences over 1 % (text output only)
  --llama-fit-params PATH
                         the llama-fit-params --verify runs (default: $LLAMAFIT_LLAMA_FIT_PARAMS,
                         else the one on the PATH)

Exit status: 0 estimated, 2 bad model, flag or setting (the message names it).
)";

// The --lora / --lora-scaled files, read for their tensor sizes (headers only).
Result<std::vector<LoraAdapterInfo>> readLoraAdapters(const ServerSettings& settings) {
    std::vector<LoraAdapterInfo> adapters;
    for (const LoraAdapterSetting& setting : settings.loraAdapters) {
        const auto file = readGgufModel(setting.path);
        if (!file) {
            return file.error();
        }
        auto adapter = interpretLoraAdapter(*file, setting.path);
        if (!adapter) {
            return adapter.error();
        }
        adapters.push_back(std::move(*adapter));
    }
    return adapters;
}

} // namespace

int runEstimateCommand(const std::vector<std::string>& args, const CommandIo& io) {
    const SizingCommand command{
        .name = "estimate", .usage = kUsage, .options = {{"--verify"}, {"--llama-fit-params", true}}};
    return runSizingCommand(args, io, command, [](const SizingRun& run) {
        const SizingRequest& request = run.request;
        const auto adapters = readLoraAdapters(request.args.settings);
        if (!adapters) {
            return run.fail(adapters.error());
        }
        Result<MemoryEstimate> estimate =
            estimateMemory(request.model.info, request.args.settings, request.args.gpus, *adapters);
        if (!estimate) {
            return run.fail(estimate.error());
        }
        if (run.json) {
            printJson(run.io.out, estimateJson(request.model, request.args, *estimate));
        } else {
            printEstimateText(run.io.out, request.model, request.args, *estimate);
            if (run.options.has("--verify")) {
                return verifyProjection(run);
            }
        }
        return kExitOk;
    });
}

} // namespace llamafit
