// `llamafit-cli devices`: what device discovery finds on this machine (core/system/deviceprobe):
// the CPU and host memory, every GPU with its memory heaps and driver figures, and which
// sources answered. Figures a source could not give are printed as "-" / JSON null. Next to
// each GPU: what llama.cpp's backend will report as free and what LlamaFit plans against
// (core/machine/backendreport), and with --bandwidth a measured host memory bandwidth.

#include "app/cli/commands.h"

#include "app/cli/jsonoutput.h"
#include "app/cli/texttable.h"
#include "core/common/units.h"
#include "core/flags/flagvalues.h"
#include "core/machine/backendreport.h"
#include "core/machine/machinefrominventory.h"
#include "core/system/bandwidthprobe.h"
#include "core/system/deviceprobe.h"
#include "core/system/rpchostquery.h"

#include <cstdio>
#include <ostream>

namespace llamafit {

namespace {

constexpr const char* kDevicesUsage =
    R"(usage: llamafit-cli devices [--json] [--bandwidth] [--no-vulkan] [--no-nvml] [--proc-dir DIR]
                           [--drm-dir DIR]
       llamafit-cli devices --rpc HOST:PORT,... [--server PATH] [--json]

Lists what this machine offers llama-server: the CPU and host memory (/proc/meminfo), every
Vulkan device with its memory heaps (and VK_EXT_memory_budget budgets), amdgpu sysfs VRAM/GTT
figures and NVIDIA NVML memory when present. A source that is missing is listed as missing;
its figures are never guessed. For each GPU it shows what llama.cpp's backend will report as
free next to the memory LlamaFit plans against, and says in one sentence why they differ.

  --json                 machine-readable output (byte counts are integers)
  --bandwidth            also measure host memory bandwidth (all CPUs reading 256 MiB, about
                         0.3 s)
  --no-vulkan            do not create a Vulkan instance
  --no-nvml              do not load NVML
  --proc-dir DIR         read meminfo/cpuinfo from DIR instead of /proc (for tests)
  --drm-dir DIR          read amdgpu cards from DIR instead of /sys/class/drm (for tests)

With --rpc: the devices llama.cpp itself would use with these ggml-rpc-servers, asked live
through the installed llama-server ('llama-server --rpc LIST --list-devices'): each server's
device with the memory it reports free, then this machine's GPUs, and the --gpu rpc:... flags
that plan for them offline. A server that is not listening, or runs another llama.cpp build
(another RPC protocol), is named with llama.cpp's reason; exit status 1.
  --server PATH          the llama-server program (default: $LLAMAFIT_LLAMA_SERVER, else
                         llama-server on the PATH)
)";

Json optionalBytes(const std::optional<std::uint64_t>& bytes) {
    return bytes ? Json(*bytes) : Json(nullptr);
}

std::string hexId(std::uint32_t id) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%04x", id);
    return text;
}

// What llama.cpp does with one discovered device: the backend's view of free memory when it
// uses it, or why it does not.
struct LlamaCppView {
    std::optional<BackendMemoryView> view;
    std::string notUsedReason;
};

bool viewDiffers(const BackendMemoryView& view) {
    // A difference under 1 MiB is rounding, not something to explain.
    const std::uint64_t a = view.reportedFreeBytes;
    const std::uint64_t b = view.planLimitBytes;
    return (a > b ? a - b : b - a) >= kMiB;
}

std::vector<LlamaCppView> llamaCppViews(const MachineInventory& inventory, const Machine& machine) {
    const std::vector<std::optional<std::size_t>> indices = machineGpuIndices(inventory);
    std::vector<LlamaCppView> views(inventory.gpus.size());
    for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
        if (indices[i]) {
            views[i].view = backendMemoryView(machine, *indices[i]);
        } else if (inventory.gpus[i].type == GpuType::Cpu) {
            // ggml-vulkan.cpp ggml_vk_instance_init: without GGML_VK_VISIBLE_DEVICES only
            // discrete and integrated GPUs become Vulkan devices.
            views[i].notUsedReason =
                "llama.cpp's Vulkan backend offers only integrated and discrete GPUs, so "
                "this CPU-type device is not used (the model runs on the CPU backend)";
        } else {
            // src/llama.cpp llama_model_load_from_file_impl: integrated GPUs only without discrete ones.
            views[i].notUsedReason = "llama.cpp uses an integrated GPU only when there is no discrete GPU, "
                                     "so this one is not used";
        }
    }
    return views;
}

Json viewJson(const BackendMemoryView& view) {
    return {{"used", true},
            {"device", view.device},
            {"reported_total_bytes", view.reportedTotalBytes},
            {"reported_free_bytes", view.reportedFreeBytes},
            {"free_observed", view.freeObserved},
            {"plan_limit_bytes", view.planLimitBytes},
            {"differs", viewDiffers(view)},
            {"explanation", view.explanation}};
}

Json llamaCppJson(const LlamaCppView& llama) {
    if (llama.view) {
        return viewJson(*llama.view);
    }
    return {{"used", false},
            {"device", nullptr},
            {"reported_total_bytes", nullptr},
            {"reported_free_bytes", nullptr},
            {"free_observed", false},
            {"plan_limit_bytes", nullptr},
            {"differs", false},
            {"explanation", llama.notUsedReason}};
}

Json gpuJson(const GpuInfo& gpu, const LlamaCppView& llama) {
    Json heaps = Json::array();
    for (const MemoryHeap& heap : gpu.heaps) {
        heaps.push_back({{"size_bytes", heap.sizeBytes},
                         {"device_local", heap.deviceLocal},
                         {"budget_bytes", optionalBytes(heap.budgetBytes)},
                         {"usage_bytes", optionalBytes(heap.usageBytes)}});
    }
    Json json = {{"name", gpu.name},
                 {"type", gpuTypeName(gpu.type)},
                 {"source", gpu.source},
                 {"vendor_id", hexId(gpu.vendorId)},
                 {"device_id", hexId(gpu.deviceId)},
                 {"driver_name", gpu.driverName},
                 {"driver_info", gpu.driverInfo},
                 {"api_version", gpu.apiVersion},
                 {"pci_bus_id", gpu.pciBusId ? Json(*gpu.pciBusId) : Json(nullptr)},
                 {"memory_budget", gpu.memoryBudget},
                 {"heaps", std::move(heaps)},
                 {"amdgpu", nullptr},
                 {"nvml", nullptr},
                 {"dxgi", nullptr},
                 {"llama_cpp", llamaCppJson(llama)}};
    if (gpu.amdgpu) {
        json["amdgpu"] = {{"card", gpu.amdgpu->card},
                          {"vram_total_bytes", optionalBytes(gpu.amdgpu->vramTotalBytes)},
                          {"vram_used_bytes", optionalBytes(gpu.amdgpu->vramUsedBytes)},
                          {"vis_vram_total_bytes", optionalBytes(gpu.amdgpu->visVramTotalBytes)},
                          {"gtt_total_bytes", optionalBytes(gpu.amdgpu->gttTotalBytes)},
                          {"gtt_used_bytes", optionalBytes(gpu.amdgpu->gttUsedBytes)}};
    }
    if (gpu.nvml) {
        json["nvml"] = {{"total_bytes", gpu.nvml->totalBytes},
                        {"used_bytes", gpu.nvml->usedBytes},
                        {"free_bytes", gpu.nvml->freeBytes}};
    }
    if (gpu.dxgi) {
        json["dxgi"] = {{"dedicated_video_bytes", gpu.dxgi->dedicatedVideoBytes},
                        {"dedicated_system_bytes", gpu.dxgi->dedicatedSystemBytes},
                        {"shared_system_bytes", gpu.dxgi->sharedSystemBytes},
                        {"local_budget_bytes", optionalBytes(gpu.dxgi->localBudgetBytes)},
                        {"local_usage_bytes", optionalBytes(gpu.dxgi->localUsageBytes)}};
    }
    return json;
}

Json hostJson(const Machine& machine, const std::optional<Result<BandwidthMeasurement>>& bandwidth) {
    Json host = {{"measured_bandwidth_bytes_per_s", nullptr},
                 {"bandwidth_method", nullptr},
                 {"bandwidth_error", nullptr},
                 {"llama_cpp", nullptr}};
    if (bandwidth && *bandwidth) {
        host["measured_bandwidth_bytes_per_s"] = (*bandwidth)->bytesPerSecond;
        host["bandwidth_method"] = (*bandwidth)->method;
    } else if (bandwidth) {
        host["bandwidth_error"] = {{"code", bandwidth->error().code},
                                   {"message", bandwidth->error().message}};
    }
    if (machine.gpus.empty()) {
        // No GPU llama.cpp uses: its --fit sizes against host memory (backendreport.h).
        host["llama_cpp"] = viewJson(backendMemoryView(machine));
    }
    return host;
}

Json inventoryJson(const MachineInventory& inventory, const std::vector<LlamaCppView>& views) {
    Json cpu = {{"name", inventory.cpuName},
                {"logical_cpus", inventory.logicalCpuCount},
                {"memory_total_bytes", nullptr},
                {"memory_available_bytes", nullptr}};
    if (inventory.hostMemory) {
        cpu["memory_total_bytes"] = inventory.hostMemory->memTotalBytes;
        cpu["memory_available_bytes"] = inventory.hostMemory->memAvailableBytes;
    }
    Json gpus = Json::array();
    for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
        gpus.push_back(gpuJson(inventory.gpus[i], views[i]));
    }
    Json sources = Json::array();
    for (const SourceStatus& source : inventory.sources) {
        sources.push_back(
            {{"name", source.name}, {"available", source.available}, {"detail", source.detail}});
    }
    Json json;
    json["cpu"] = std::move(cpu);
    json["gpus"] = std::move(gpus);
    json["sources"] = std::move(sources);
    return json;
}

std::string gibOrDash(const std::optional<std::uint64_t>& bytes) {
    return bytes ? formatGiB(*bytes) : "-";
}

// "2.00 GiB local (budget 1.80, used 0.01)" per heap, joined with "; ".
std::string heapsText(const GpuInfo& gpu) {
    std::string text;
    for (const MemoryHeap& heap : gpu.heaps) {
        text +=
            (text.empty() ? "" : "; ") + formatGiB(heap.sizeBytes) + (heap.deviceLocal ? " local" : " host");
        if (heap.budgetBytes) {
            text += " (budget " + formatGiB(*heap.budgetBytes) + ", used " + gibOrDash(heap.usageBytes) + ")";
        }
    }
    return text.empty() ? "-" : text;
}

void printLlamaCpp(std::ostream& out, const MachineInventory& inventory, const Machine& machine,
                   const std::vector<LlamaCppView>& views) {
    out << "\nWhat llama.cpp's backend will report as free:\n";
    for (std::size_t i = 0; i < views.size(); ++i) {
        out << "  #" << i << " ";
        if (!views[i].view) {
            out << inventory.gpus[i].name << ": not used. " << views[i].notUsedReason << ".\n";
            continue;
        }
        const BackendMemoryView& view = *views[i].view;
        out << view.device << ": " << formatMiBGrouped(view.reportedFreeBytes) << " free ("
            << (view.freeObserved ? "reported by the driver now" : "predicted")
            << "), LlamaFit plans against " << formatMiBGrouped(view.planLimitBytes) << "\n";
        if (viewDiffers(view)) {
            out << "     " << view.explanation << ".\n";
        }
    }
    if (machine.gpus.empty()) {
        out << "  CPU: " << backendMemoryView(machine).explanation << ".\n";
    }
}

void printBandwidth(std::ostream& out, const Result<BandwidthMeasurement>& bandwidth) {
    if (!bandwidth) {
        out << "Host memory bandwidth: not measured (" << bandwidth.error().message << ")\n";
        return;
    }
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.1f GB/s", static_cast<double>(bandwidth->bytesPerSecond) / 1e9);
    out << "Host memory bandwidth: " << figure << " measured (" << bandwidth->method << ")\n";
}

void printText(const MachineInventory& inventory, std::ostream& out) {
    out << "CPU: " << (inventory.cpuName.empty() ? std::string("unknown") : inventory.cpuName);
    if (inventory.logicalCpuCount > 0) {
        out << " (" << inventory.logicalCpuCount << " logical CPUs)";
    }
    out << "\nHost memory: ";
    if (inventory.hostMemory) {
        out << formatGiB(inventory.hostMemory->memTotalBytes) << " GiB total, "
            << formatGiB(inventory.hostMemory->memAvailableBytes) << " GiB available\n";
    } else {
        out << "unknown (see sources)\n";
    }
    out << "\nGPUs (memory in GiB):\n";
    if (inventory.gpus.empty()) {
        out << "  none found\n";
    } else {
        TextTable table({"#", "name", "type", "driver", "api", "heaps"});
        for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
            const GpuInfo& gpu = inventory.gpus[i];
            const std::string driver =
                gpu.driverName.empty() ? gpu.source : gpu.driverName + " " + gpu.driverInfo;
            table.addRow({std::to_string(i), gpu.name, std::string(gpuTypeName(gpu.type)), driver,
                          gpu.apiVersion.empty() ? "-" : gpu.apiVersion, heapsText(gpu)});
        }
        table.print(out);
        for (std::size_t i = 0; i < inventory.gpus.size(); ++i) {
            const GpuInfo& gpu = inventory.gpus[i];
            if (gpu.amdgpu) {
                out << "  #" << i << " amdgpu " << gpu.amdgpu->card << ": VRAM "
                    << gibOrDash(gpu.amdgpu->vramUsedBytes) << " / " << gibOrDash(gpu.amdgpu->vramTotalBytes)
                    << " used (visible " << gibOrDash(gpu.amdgpu->visVramTotalBytes) << "), GTT "
                    << gibOrDash(gpu.amdgpu->gttUsedBytes) << " / " << gibOrDash(gpu.amdgpu->gttTotalBytes)
                    << " used\n";
            }
            if (gpu.nvml) {
                out << "  #" << i << " NVML: " << formatGiB(gpu.nvml->usedBytes) << " / "
                    << formatGiB(gpu.nvml->totalBytes) << " used\n";
            }
            if (gpu.dxgi) {
                out << "  #" << i << " DXGI: dedicated " << formatGiB(gpu.dxgi->dedicatedVideoBytes)
                    << ", shared " << formatGiB(gpu.dxgi->sharedSystemBytes) << "\n";
            }
        }
    }
    out << "\nSources:\n";
    TextTable sources({"source", "found", "detail"});
    for (const SourceStatus& source : inventory.sources) {
        sources.addRow({source.name, source.available ? "yes" : "no", source.detail});
    }
    sources.print(out);
}

// `devices --rpc`: llama.cpp's own device list with the RPC servers in it.
int printRpcDevices(const CliOptions& options, const CommandIo& io) {
    RpcHostQuery query;
    query.llamaServer = llamaServerProgram(options);
    const std::string list = options.value("--rpc").value_or("");
    for (const std::string_view endpoint : split(list, ",")) {
        query.endpoints.emplace_back(endpoint);
    }
    Result<std::vector<ListedDevice>> devices = queryListedDevices(query);
    if (!devices) {
        const int exitCode = reportError(io, devices.error(), options.has("--json"));
        constexpr int kExitRpcFailed = 1; // the servers could not be asked: not a usage error
        return devices.error().code == "rpc.bad-endpoint" ? exitCode : kExitRpcFailed;
    }
    std::string offline = "--rpc " + list;
    for (const ListedDevice& device : *devices) {
        if (device.name.rfind("RPC", 0) == 0) {
            offline += " --gpu rpc:" + device.description + "=" + std::to_string(device.freeBytes / kMiB);
        }
    }
    if (options.has("--json")) {
        Json out = Json::array();
        for (const ListedDevice& device : *devices) {
            out.push_back({{"name", device.name},
                           {"description", device.description},
                           {"total_bytes", device.totalBytes},
                           {"free_bytes", device.freeBytes}});
        }
        printJson(io.out, Json{{"devices", out}, {"offline_flags", offline}});
        return kExitOk;
    }
    io.out << "llama.cpp's devices (" << query.llamaServer << " --rpc " << list << " --list-devices):\n";
    TextTable table({"device", "endpoint / name", "total MiB", "free MiB"});
    for (const ListedDevice& device : *devices) {
        table.addRow({device.name, device.description, std::to_string(device.totalBytes / kMiB),
                      std::to_string(device.freeBytes / kMiB)});
    }
    table.print(io.out);
    io.out << "To plan for these servers without a connection: " << offline << "\n";
    return kExitOk;
}

} // namespace

int runDevicesCommand(const std::vector<std::string>& args, const CommandIo& io) {
    Result<CliOptions> options = splitCliOptions(args, {{"--json"},
                                                        {"--no-vulkan"},
                                                        {"--no-nvml"},
                                                        {"--bandwidth"},
                                                        {"--proc-dir", true},
                                                        {"--drm-dir", true},
                                                        {"--rpc", true},
                                                        {"--server", true},
                                                        {"--help"},
                                                        {"-h"}});
    if (!options) {
        return reportError(io, options.error(), false);
    }
    const bool json = options->has("--json");
    if (const auto exitCode = endOnHelpOrStrayArgument(*options, "devices", kDevicesUsage, io)) {
        return *exitCode;
    }
    if (options->has("--rpc")) {
        return printRpcDevices(*options, io);
    }
    DeviceProbeOptions probe;
    probe.vulkan = !options->has("--no-vulkan");
    if (options->has("--no-nvml")) {
        probe.nvmlLibrary.reset();
    }
    if (std::optional<std::string> dir = options->value("--proc-dir")) {
        probe.procDir = *dir;
    }
    if (std::optional<std::string> dir = options->value("--drm-dir")) {
        probe.drmClassDir = *dir;
    }
    const MachineInventory inventory = probeMachine(probe);
    const Machine machine = machineFromInventory(inventory);
    const std::vector<LlamaCppView> views = llamaCppViews(inventory, machine);
    std::optional<Result<BandwidthMeasurement>> bandwidth;
    if (options->has("--bandwidth")) {
        bandwidth = measureHostBandwidth();
    }
    if (json) {
        Json out = inventoryJson(inventory, views);
        out["host"] = hostJson(machine, bandwidth);
        printJson(io.out, out);
    } else {
        printText(inventory, io.out);
        printLlamaCpp(io.out, inventory, machine, views);
        if (bandwidth) {
            printBandwidth(io.out, *bandwidth);
        }
    }
    return kExitOk;
}

} // namespace llamafit
