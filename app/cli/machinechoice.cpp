// --machine, or the machine the app would start on; see machinechoice.h.
#include "app/cli/machinechoice.h"

#include "core/machine/machinefrominventory.h"
#include "core/machine/machineprofile.h"
#include "core/system/bandwidthprobe.h"
#include "core/system/deviceprobe.h"

namespace llamafit {

Result<ChosenMachine> chooseMachine(const CliOptions& options) {
    if (const std::optional<std::string> name = options.value("--machine")) {
        Result<Machine> machine = resolveMachine(*name);
        if (!machine) {
            return machine.error();
        }
        return ChosenMachine{*machine, "--machine " + *name};
    }
    DeviceProbeOptions probe;
    probe.vulkan = !options.has("--no-vulkan");
    if (options.has("--no-nvml")) {
        probe.nvmlLibrary.reset();
    }
    if (std::optional<std::string> dir = options.value("--proc-dir")) {
        probe.procDir = *dir;
    }
    if (std::optional<std::string> dir = options.value("--drm-dir")) {
        probe.drmClassDir = *dir;
    }
    const MachineInventory inventory = probeMachine(probe);
    ChosenMachine chosen{chooseStartMachine(inventory), ""};
    if (inventoryHasGpu(inventory)) {
        std::string gpus;
        for (const MachineGpu& gpu : chosen.machine.gpus) {
            gpus += (gpus.empty() ? "" : ", ") + gpu.model;
        }
        chosen.because = "detected: device discovery found a GPU llama.cpp can use (" + gpus + ")";
        if (options.has("--bandwidth")) {
            Result<BandwidthMeasurement> bandwidth = measureHostBandwidth();
            if (bandwidth) {
                applyMeasuredBandwidth(chosen.machine, bandwidth->bytesPerSecond, bandwidth->method);
            } else {
                chosen.machine.notes.push_back("bandwidth not measured: " + bandwidth.error().message);
            }
        }
        return chosen;
    }
    std::string cpuDevices;
    for (const GpuInfo& gpu : inventory.gpus) {
        if (gpu.type == GpuType::Cpu) {
            cpuDevices += (cpuDevices.empty() ? "" : ", ") + gpu.name;
        }
    }
    chosen.because = "device discovery found no GPU" +
                     (cpuDevices.empty() ? std::string()
                                         : " (" + cpuDevices + " is a CPU-type Vulkan device, not a GPU)") +
                     ", so the plan is for the built-in " + chosen.machine.id +
                     " profile (the seed's machine); choose another with --machine";
    return chosen;
}

Result<PlacementOptions> placementOptions(const CliOptions& options) {
    PlacementOptions placement;
    if (const std::optional<std::string> margin = options.value("--margin-mib")) {
        Result<std::uint64_t> bytes = parseMiB("--margin-mib", *margin);
        if (!bytes) {
            return bytes.error();
        }
        placement.marginBytes = *bytes;
    }
    return placement;
}

} // namespace llamafit
