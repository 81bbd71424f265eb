// Machine profiles: the five built-ins parse, name their sources and round-trip through JSON and
// files; a corrupt profile is a named error; the start machine is the detected one with a GPU,
// else the EVO-X2.
#include "core/common/units.h"
#include "core/machine/machineprofile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace llamafit {
namespace {

Error profileError(std::string_view json) {
    Result<Machine> machine = parseMachineProfile(json);
    EXPECT_FALSE(machine.ok()) << json;
    return machine.ok() ? Error{} : machine.error();
}

constexpr std::string_view kMinimal = R"({"format": "llamafit-machine", "version": 1, "id": "m", "name": "M",
  "os": "linux", "pools": [{"name": "System RAM", "kind": "host-ram", "capacity_mib": 1024, "reserved_mib": 0,
  "shares_with": null}], "host_pool": 0})";

TEST(MachineProfile, BuiltinsParseAndNameTheirSources) {
    EXPECT_TRUE(builtinMachineErrors().empty()) << builtinMachineErrors().front().message;
    std::vector<std::string> ids;
    for (const Machine& machine : builtinMachines()) {
        ids.push_back(machine.id);
        EXPECT_FALSE(machine.sources.empty()) << machine.id;
        EXPECT_TRUE(machine.bandwidthBytesPerSecond.has_value()) << machine.id;
        EXPECT_FALSE(machine.bandwidthSource.empty()) << machine.id;
    }
    const std::vector<std::string> expected{"gmktec-evo-x2-64gb-32-32", "strix-halo-128gb", "rtx-4060-8gb",
                                            "rtx-3090-24gb", "cpu-only"};
    EXPECT_EQ(ids, expected);
    Result<Machine> evo = findBuiltinMachine(defaultMachineId());
    ASSERT_TRUE(evo.ok());
    EXPECT_EQ(evo->name, "GMKtec EVO-X2 — Ryzen AI Max+ 395, 64 GB, BIOS 32/32");
    EXPECT_EQ(*evo->bandwidthBytesPerSecond, 256'000'000'000u);
    Result<Machine> halo = findBuiltinMachine("strix-halo-128gb");
    ASSERT_TRUE(halo.ok());
    EXPECT_EQ(halo->biosSplit->carveOutBytes, 96 * kGiB);
    EXPECT_EQ(findPool(*halo, PoolKind::ApuShared)->capacityBytes, 16 * kGiB); // GTT default: half of 32 GiB
    EXPECT_EQ(*findBuiltinMachine("rtx-4060-8gb")->bandwidthBytesPerSecond, 272'000'000'000u);
    EXPECT_EQ(*findBuiltinMachine("rtx-3090-24gb")->bandwidthBytesPerSecond, 936'000'000'000u);
    EXPECT_TRUE(findBuiltinMachine("cpu-only")->gpus.empty());
    EXPECT_EQ(findBuiltinMachine("no-such-box").error().code, "machine.unknown-profile");
}

TEST(MachineProfile, EveryBuiltinRoundTrips) {
    for (const Machine& machine : builtinMachines()) {
        Result<Machine> again = parseMachineProfile(machineProfileJson(machine));
        ASSERT_TRUE(again.ok()) << machine.id << ": " << again.error().message;
        EXPECT_EQ(*again, machine) << machine.id;
    }
}

TEST(MachineProfile, DeviceLimitsReachTheSizingGpusAndRoundTrip) {
    // The Radeon 8060S profiles carry RADV's 4 GiB - 1 storage-buffer range; the CUDA ones none.
    const Machine evo = *findBuiltinMachine(defaultMachineId());
    ASSERT_EQ(evo.gpus.size(), 1u);
    EXPECT_EQ(evo.gpus[0].limits.maxStorageBufferRangeBytes, 4294967295u);
    EXPECT_EQ(sizingGpus(evo).front().limits, evo.gpus[0].limits);
    EXPECT_FALSE(findBuiltinMachine("rtx-4060-8gb")->gpus[0].limits.largestOpTensorBytes());
    // lavapipe's values (vulkaninfo: maxStorageBufferRange 134217728, maxMemoryAllocationSize
    // 0x80000000) in the explicit form, written only when known.
    Result<Machine> machine = parseMachineProfile(kMinimal);
    ASSERT_TRUE(machine.ok()) << machine.error().message;
    machine->pools.push_back(MemoryPool{"VRAM", PoolKind::DiscreteVram, 2 * kGiB, true, 0, std::nullopt});
    MachineGpu gpu{"Vulkan0", "llvmpipe", Backend::Vulkan, false, 1};
    gpu.limits = DeviceLimits{128 * kMiB, 2 * kGiB};
    machine->gpus.push_back(gpu);
    const std::string json = machineProfileJson(*machine);
    EXPECT_NE(json.find("\"max_storage_buffer_range_bytes\": 134217728"), std::string::npos) << json;
    Result<Machine> again = parseMachineProfile(json);
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(*again, *machine);
    machine->gpus[0].limits = {};
    EXPECT_EQ(machineProfileJson(*machine).find("max_storage"), std::string::npos);
    std::string fractional = json;
    fractional.replace(fractional.find("134217728"), 9, "1.5");
    EXPECT_EQ(profileError(fractional).code, "machine.bad-value");
}

TEST(MachineProfile, OddSizesAndUnknownCapacityRoundTrip) {
    Result<Machine> machine = parseMachineProfile(kMinimal);
    ASSERT_TRUE(machine.ok()) << machine.error().message;
    machine->pools[0].capacityBytes = 31'967'254'528ULL + 4096; // MemTotal-like, not whole MiB
    machine->pools[0].reservedByOsBytes = 12345 * kKiB;
    machine->pools.push_back(MemoryPool{"VRAM", PoolKind::DiscreteVram, 0, false, 0, std::nullopt});
    machine->gpus.push_back(MachineGpu{"Vulkan0", "card", Backend::Vulkan, false, 1});
    machine->bandwidthBytesPerSecond = 89'600'000'000ULL;
    machine->observedBackendFreeBytes = 7457 * kMiB;
    Result<Machine> again = parseMachineProfile(machineProfileJson(*machine));
    ASSERT_TRUE(again.ok()) << again.error().message;
    EXPECT_EQ(*again, *machine);
}

TEST(MachineProfile, SaveAndLoadAFile) {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("llamafit-machine-" + std::to_string(::getpid()) + ".json");
    const Machine evo = *findBuiltinMachine(defaultMachineId());
    ASSERT_TRUE(saveMachineProfile(evo, path.string()).ok());
    Result<Machine> loaded = loadMachineProfile(path.string());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
    EXPECT_EQ(*loaded, evo);
    Result<Machine> resolved = resolveMachine(path.string());
    ASSERT_TRUE(resolved.ok());
    EXPECT_EQ(*resolved, evo);

    std::ofstream(path) << "{ \"format\": \"llamafit-machine\", ";
    Result<Machine> broken = loadMachineProfile(path.string());
    ASSERT_FALSE(broken.ok());
    EXPECT_EQ(broken.error().code, "machine.bad-json");
    EXPECT_NE(broken.error().message.find(path.string()), std::string::npos);
    std::filesystem::remove(path);

    EXPECT_EQ(loadMachineProfile(path.string()).error().code, "machine.unreadable");
    EXPECT_EQ(resolveMachine(path.string()).error().code, "machine.unknown-profile");
    EXPECT_EQ(saveMachineProfile(evo, "/nonexistent-dir/x.json").error().code, "machine.unwritable");
}

TEST(MachineProfile, CorruptProfilesAreNamedErrors) {
    EXPECT_EQ(profileError("not json").code, "machine.bad-json");
    EXPECT_EQ(profileError("[1, 2]").code, "machine.bad-json");
    EXPECT_EQ(profileError(R"({"format": "llamafit-machine", "version": 1, "id": "m", "name": "M", "color": 3,
        "pools": []})")
                  .code,
              "machine.bad-json");
    EXPECT_EQ(profileError(R"({"format": "llamafit-machine", "version": 1, "name": "M", "pools": []})").code,
              "machine.missing-field");
    EXPECT_EQ(profileError(R"({"format": "something-else", "version": 1, "id": "m", "name": "M",
        "pools": [{"name": "r", "kind": "host-ram", "capacity_mib": 1}], "host_pool": 0})")
                  .code,
              "machine.bad-value");
    EXPECT_EQ(profileError(R"({"format": "llamafit-machine", "version": 2, "id": "m", "name": "M",
        "pools": [{"name": "r", "kind": "host-ram", "capacity_mib": 1}], "host_pool": 0})")
                  .code,
              "machine.bad-value");
    // Neither apu nor pools.
    EXPECT_EQ(profileError(R"({"format": "llamafit-machine", "version": 1, "id": "m", "name": "M"})").code,
              "machine.bad-json");

    std::string text(kMinimal);
    auto with = [&text](std::string_view from, std::string_view to) {
        std::string copy = text;
        copy.replace(copy.find(from), from.size(), to);
        return copy;
    };
    EXPECT_EQ(profileError(with("\"host-ram\"", "\"ram\"")).code, "machine.bad-value");
    EXPECT_EQ(profileError(with("\"capacity_mib\": 1024", "\"capacity_mib\": -5")).code, "machine.bad-value");
    EXPECT_EQ(profileError(with("\"capacity_mib\": 1024", "\"capacity_mib\": \"1 GB\"")).code,
              "machine.bad-json");
    EXPECT_EQ(profileError(with("\"capacity_mib\": 1024, ", "")).code, "machine.missing-field");
    EXPECT_EQ(profileError(with("\"host_pool\": 0", "\"host_pool\": 3")).code, "machine.bad-value");
    EXPECT_EQ(profileError(with("\"os\": \"linux\"", "\"os\": \"beos\"")).code, "machine.bad-value");
    EXPECT_EQ(profileError(with("\"host_pool\": 0",
                                "\"host_pool\": 0, \"gpus\": [{\"name\": \"CUDA0\", \"pool\": 1}]"))
                  .code,
              "machine.bad-value");
    EXPECT_EQ(profileError(with("\"host_pool\": 0", "\"host_pool\": 0, \"apu\": {}")).code,
              "machine.bad-json");
}

TEST(MachineProfile, ApuShortForm) {
    constexpr std::string_view apu = R"({"format": "llamafit-machine", "version": 1, "id": "a", "name": "A",
      "os": "linux", "cpu": "AMD Ryzen AI 9 HX 370",
      "apu": {"gpu": "Radeon 890M", "backend": "vulkan", "physical_mib": 32768, "carve_out_mib": 8192,
              "os_use_mib": 4096, "gtt_limit_mib": 20480}})";
    Result<Machine> machine = parseMachineProfile(apu);
    ASSERT_TRUE(machine.ok()) << machine.error().message;
    EXPECT_EQ(findPool(*machine, PoolKind::ApuShared)->capacityBytes, 20 * kGiB);
    EXPECT_EQ(findPool(*machine, PoolKind::HostRam)->capacityBytes, 24 * kGiB);
    ASSERT_TRUE(machine->biosSplit.has_value());
    // No list given: the known Ryzen AI 300 list, up to 3/4 of 32 GiB.
    EXPECT_EQ(machine->biosSplit->offeredCarveOutBytes.back(), 24 * kGiB);
    EXPECT_FALSE(machine->biosSplit->offeredSource.empty());
    EXPECT_EQ(
        profileError(R"({"format": "llamafit-machine", "version": 1, "id": "a", "name": "A", "os": "linux",
      "apu": {"gpu": "g", "physical_mib": 8192, "carve_out_mib": 8192, "os_use_mib": 0}})")
            .code,
        "machine.bad-value");
}

TEST(MachineProfile, StartMachine) {
    // No discovery at all, or discovery without a GPU: the seed's EVO-X2.
    EXPECT_EQ(chooseStartMachine(std::nullopt).id, defaultMachineId());
    MachineInventory lavapipeOnly;
    lavapipeOnly.hostMemory = HostMemory{24 * kGiB, 20 * kGiB};
    GpuInfo lavapipe;
    lavapipe.name = "llvmpipe (LLVM 15.0.6, 256 bits)";
    lavapipe.type = GpuType::Cpu;
    lavapipeOnly.gpus.push_back(lavapipe);
    EXPECT_EQ(chooseStartMachine(lavapipeOnly).id, defaultMachineId());
    // A real GPU: the detected machine.
    MachineInventory withGpu = lavapipeOnly;
    GpuInfo card;
    card.name = "NVIDIA GeForce RTX 4060";
    card.vendorId = 0x10de;
    card.type = GpuType::Discrete;
    card.nvml = NvmlMemory{8188 * kMiB, 300 * kMiB, 7888 * kMiB};
    withGpu.gpus.push_back(card);
    const Machine detected = chooseStartMachine(withGpu);
    EXPECT_EQ(detected.id, "detected");
    ASSERT_EQ(detected.gpus.size(), 1u);
    EXPECT_EQ(detected.gpus[0].name, "CUDA0");
}

} // namespace
} // namespace llamafit
