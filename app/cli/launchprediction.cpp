// predict(); see launchprediction.h.
#include "app/cli/launchprediction.h"

#include "app/cli/modelsource.h"
#include "app/cli/serverbuild.h"
#include "app/cli/sizingcommand.h"
#include "core/model/companionmodels.h"
#include "core/server/devicelist.h"
#include "core/sizing/estimator.h"
#include "core/sizing/llamabuild.h"
#include "core/sizing/rpcdevices.h"
#include "core/system/rpchostquery.h"
#include "core/system/vulkanprobe.h"

#include <algorithm>
#include <chrono>
#include <memory>

namespace llamafit {
namespace {

// --gpu named a local GPU, or -dev chose the devices: the prediction is for those.
bool localDevicesGiven(const ParsedServerArgs& parsed) {
    const bool localGiven = std::any_of(parsed.gpus.begin(), parsed.gpus.end(),
                                        [](const GpuDevice& gpu) { return gpu.backend != Backend::Rpc; });
    const bool devicesChosen =
        std::any_of(parsed.flags.begin(), parsed.flags.end(), [](const ParsedFlag& flag) {
            return flag.spelling == "-dev" || flag.spelling == "--device";
        });
    return localGiven || devicesChosen;
}

// The local GPUs of `listed` (--list-devices of `server`) join the prediction; a Vulkan device gets
// its limits from the Vulkan driver. Before, a launch without --gpu predicted a CPU-only run next
// to the GPU buffers the server logged.
void addListedLocalGpus(ParsedServerArgs& parsed, const std::vector<ListedDevice>& listed,
                        const std::string& server, std::ostream& err) {
    std::vector<GpuInfo> probed;
    if (std::any_of(listed.begin(), listed.end(),
                    [](const ListedDevice& device) { return device.name.rfind("Vulkan", 0) == 0; })) {
        if (Result<std::shared_ptr<VulkanProbe>> vulkan = VulkanProbe::open(); vulkan) {
            probed = (*vulkan)->devices();
        }
    }
    for (const ListedDevice& device : listed) {
        if (std::optional<GpuDevice> gpu = listedLocalGpu(device, probed)) {
            err << "llamafit-cli: predicting for " << gpu->name << " (" << device.description << ", "
                << device.freeBytes / (1024 * 1024) << " MiB free), as " << server << " lists it\n";
            parsed.gpus.push_back(std::move(*gpu));
        }
    }
    parsed.gpus = inLlamaDeviceOrder(parsed.settings, std::move(parsed.gpus));
}

} // namespace

std::optional<Prediction> predict(ParsedServerArgs parsed, const std::string& server, std::ostream& err) {
    // One --list-devices run serves both: the one that asked the RPC servers lists this machine's
    // GPUs too (and is never empty: it holds the RPC servers' devices).
    std::vector<ListedDevice> listed;
    if (Result<bool> live = addLiveRpcDevices(parsed, server, &listed); !live) {
        err << "llamafit-cli: no prediction (" << live.error().message << ")\n";
        return std::nullopt;
    }
    if (!localDevicesGiven(parsed)) {
        if (listed.empty()) {
            RpcHostQuery query;
            query.llamaServer = server;
            query.timeout = std::chrono::seconds(15); // a backend's start-up: lavapipe 0.2 s
            if (Result<std::vector<ListedDevice>> local = queryListedDevices(query); local) {
                listed = std::move(*local);
            } else {
                err << "llamafit-cli: note: predicting without GPUs (" << local.error().message
                    << "; --gpu names them)\n";
            }
        }
        addListedLocalGpus(parsed, listed, server, err);
    }
    Result<LoadedModel> loaded = loadModel(parsed.model);
    if (!loaded) {
        err << "llamafit-cli: no prediction (" << loaded.error().message << ")\n";
        return std::nullopt;
    }
    Result<CompanionModels> companions = loadCompanionModels(parsed.settings);
    if (!companions) {
        err << "llamafit-cli: no prediction (" << companions.error().message << ")\n";
        return std::nullopt;
    }
    SizingModel model = prepareModel(std::move(loaded->info), std::move(*companions));
    const std::uint32_t llamaBuild = buildToSizeFor(server, err);
    parsed.settings.llamaBuild = llamaBuild;
    Result<MemoryEstimate> estimate = estimateMemory(model, parsed.settings, parsed.gpus);
    if (!estimate) {
        err << "llamafit-cli: no prediction (" << estimate.error().message << ")\n";
        return std::nullopt;
    }
    return Prediction{std::move(model), parsed.settings, parsed.gpus, std::move(*estimate), llamaBuild};
}

} // namespace llamafit
