// `llamafit-cli devices`: the built binary (LLAMAFIT_CLI_PATH) run as a user would, on this
// machine (host memory + lavapipe) and on a fixture machine with sources switched off.

#include "core/common/units.h"

#include "tests/support/commandrun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace llamafit {
namespace {

using Json = nlohmann::json;

struct CliRun {
    int exitCode = -1;
    std::string out;
};

// Arguments here are fixed words and fixture paths without quotes or spaces.
CliRun runCli(const std::string& args) {
    test::CommandRun ran =
        test::runShellCommand(std::string(LLAMAFIT_CLI_PATH) + " " + args + " 2>/dev/null");
    return CliRun{ran.exitCode, std::move(ran.out)};
}

const Json* findSource(const Json& json, const std::string& name) {
    for (const Json& source : json.at("sources")) {
        if (source.at("name") == name) {
            return &source;
        }
    }
    return nullptr;
}

TEST(DevicesCli, JsonListsHostMemoryAndLavapipe) {
    const CliRun run = runCli("devices --json");
    ASSERT_EQ(run.exitCode, 0) << run.out;
    const Json json = Json::parse(run.out, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << run.out;
    const Json& cpu = json.at("cpu");
    ASSERT_TRUE(cpu.at("memory_total_bytes").is_number_unsigned()) << cpu.dump();
    EXPECT_GT(cpu.at("memory_total_bytes").get<std::uint64_t>(), 0u);
    EXPECT_LE(cpu.at("memory_available_bytes").get<std::uint64_t>(),
              cpu.at("memory_total_bytes").get<std::uint64_t>());
    EXPECT_GT(cpu.at("logical_cpus").get<unsigned>(), 0u);

    bool lavapipe = false;
    for (const Json& gpu : json.at("gpus")) {
        if (gpu.at("driver_name") == "llvmpipe") {
            lavapipe = true;
            EXPECT_EQ(gpu.at("type"), "cpu");
            EXPECT_EQ(gpu.at("source"), "vulkan");
            ASSERT_FALSE(gpu.at("heaps").empty());
            EXPECT_GT(gpu.at("heaps")[0].at("size_bytes").get<std::uint64_t>(), 0u);
            // No VK_EXT_memory_budget on this lavapipe, or a real budget: never a made-up one.
            EXPECT_EQ(gpu.at("heaps")[0].at("budget_bytes").is_null(), !gpu.at("memory_budget").get<bool>());
        }
    }
    EXPECT_TRUE(lavapipe) << run.out;
    ASSERT_NE(findSource(json, "vulkan"), nullptr);
    EXPECT_TRUE(findSource(json, "vulkan")->at("available").get<bool>());
    ASSERT_NE(findSource(json, "proc-meminfo"), nullptr);
    EXPECT_TRUE(findSource(json, "proc-meminfo")->at("available").get<bool>());
}

TEST(DevicesCli, FixtureMachineWithSourcesOff) {
    const std::string machine = std::string(LLAMAFIT_TEST_SYSFS_DIR) + "/strix-halo-128g-512m-gtt108g";
    const CliRun run = runCli("devices --json --no-vulkan --no-nvml --proc-dir " + machine +
                              "/proc --drm-dir " + machine + "/sys/class/drm");
    ASSERT_EQ(run.exitCode, 0) << run.out;
    const Json json = Json::parse(run.out, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << run.out;
    EXPECT_EQ(json.at("cpu").at("memory_total_bytes").get<std::uint64_t>(), 127360 * kMiB);
    ASSERT_EQ(json.at("gpus").size(), 1u);
    const Json& amdgpu = json.at("gpus")[0].at("amdgpu");
    EXPECT_EQ(amdgpu.at("vram_total_bytes").get<std::uint64_t>(), 512 * kMiB);
    EXPECT_EQ(amdgpu.at("gtt_total_bytes").get<std::uint64_t>(), 108000 * kMiB);
    EXPECT_TRUE(json.at("gpus")[0].at("nvml").is_null());
    EXPECT_FALSE(findSource(json, "vulkan")->at("available").get<bool>());
    EXPECT_FALSE(findSource(json, "nvml")->at("available").get<bool>());
}

TEST(DevicesCli, TextOutputNamesDevicesAndSources) {
    const CliRun run = runCli("devices");
    ASSERT_EQ(run.exitCode, 0);
    EXPECT_NE(run.out.find("llvmpipe"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("Host memory:"), std::string::npos);
    EXPECT_NE(run.out.find("proc-meminfo"), std::string::npos);
}

// lavapipe is a CPU-type Vulkan device: llama.cpp does not use it, and with no GPU its backend
// sizes against host memory; --bandwidth adds a measured figure, and without it none is shown.
TEST(DevicesCli, LlamaCppViewOfLavapipeAndHost) {
    const CliRun run = runCli("devices --json");
    ASSERT_EQ(run.exitCode, 0) << run.out;
    const Json json = Json::parse(run.out, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << run.out;
    bool anyUsed = false;
    for (const Json& gpu : json.at("gpus")) {
        const Json& llama = gpu.at("llama_cpp");
        anyUsed = anyUsed || llama.at("used").get<bool>();
        EXPECT_FALSE(llama.at("explanation").get<std::string>().empty()) << llama.dump();
        if (gpu.at("type") == "cpu") {
            EXPECT_FALSE(llama.at("used").get<bool>());
            EXPECT_TRUE(llama.at("reported_free_bytes").is_null());
            EXPECT_NE(llama.at("explanation").get<std::string>().find("CPU-type"), std::string::npos);
        }
    }
    const Json& host = json.at("host");
    EXPECT_TRUE(host.at("measured_bandwidth_bytes_per_s").is_null());
    // With no GPU llama.cpp uses, the host's view is there, and only then.
    EXPECT_EQ(host.at("llama_cpp").is_null(), anyUsed) << host.dump();
    if (!anyUsed) {
        EXPECT_EQ(host.at("llama_cpp").at("device"), "CPU");
        EXPECT_LE(host.at("llama_cpp").at("plan_limit_bytes").get<std::uint64_t>(),
                  json.at("cpu").at("memory_total_bytes").get<std::uint64_t>());
    }
    const CliRun text = runCli("devices");
    EXPECT_NE(text.out.find("What llama.cpp's backend will report as free:"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("llvmpipe"), std::string::npos);
    EXPECT_NE(text.out.find("not used"), std::string::npos) << text.out;
    EXPECT_EQ(text.out.find("Host memory bandwidth"), std::string::npos);
}

TEST(DevicesCli, BandwidthIsMeasuredOnlyWhenAsked) {
    const CliRun run = runCli("devices --json --bandwidth --no-vulkan --no-nvml");
    ASSERT_EQ(run.exitCode, 0) << run.out;
    const Json json = Json::parse(run.out, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << run.out;
    const Json& host = json.at("host");
    ASSERT_TRUE(host.at("measured_bandwidth_bytes_per_s").is_number_unsigned()) << host.dump();
    const auto bytesPerSecond = host.at("measured_bandwidth_bytes_per_s").get<std::uint64_t>();
    EXPECT_GT(bytesPerSecond, 100'000'000u);
    EXPECT_LT(bytesPerSecond, 10'000'000'000'000u);
    EXPECT_NE(host.at("bandwidth_method").get<std::string>().find("MiB"), std::string::npos);
    const CliRun text = runCli("devices --bandwidth --no-vulkan --no-nvml");
    EXPECT_NE(text.out.find("Host memory bandwidth: "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find(" GB/s measured ("), std::string::npos) << text.out;
}

// The EVO-X2 fixture without Vulkan: the amdgpu card is all discovery knows, llama.cpp would
// see its VRAM less what is in use, and that is what LlamaFit plans against (nothing to explain).
TEST(DevicesCli, LlamaCppViewOnAFixtureMachine) {
    const std::string machine = std::string(LLAMAFIT_TEST_SYSFS_DIR) + "/evo-x2-64g-32-32";
    const std::string args =
        "--no-vulkan --no-nvml --proc-dir " + machine + "/proc --drm-dir " + machine + "/sys/class/drm";
    const CliRun run = runCli("devices --json " + args);
    ASSERT_EQ(run.exitCode, 0) << run.out;
    const Json json = Json::parse(run.out, nullptr, false);
    ASSERT_FALSE(json.is_discarded()) << run.out;
    ASSERT_EQ(json.at("gpus").size(), 1u);
    const Json& gpu = json.at("gpus")[0];
    const Json& llama = gpu.at("llama_cpp");
    ASSERT_TRUE(llama.at("used").get<bool>()) << llama.dump();
    EXPECT_EQ(llama.at("device"), "Vulkan0");
    const std::uint64_t free = gpu.at("amdgpu").at("vram_total_bytes").get<std::uint64_t>() -
                               gpu.at("amdgpu").at("vram_used_bytes").get<std::uint64_t>();
    EXPECT_EQ(llama.at("reported_free_bytes").get<std::uint64_t>(), free);
    EXPECT_EQ(llama.at("plan_limit_bytes").get<std::uint64_t>(), free);
    EXPECT_FALSE(llama.at("free_observed").get<bool>());
    EXPECT_FALSE(llama.at("differs").get<bool>());
    EXPECT_TRUE(json.at("host").at("llama_cpp").is_null());
    const CliRun text = runCli("devices " + args);
    EXPECT_NE(text.out.find("#0 Vulkan0: "), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("predicted"), std::string::npos) << text.out;
}

TEST(DevicesCli, RejectsUnknownArguments) {
    EXPECT_EQ(runCli("devices --json extra").exitCode, 2);
    EXPECT_EQ(runCli("devices --drm-dir").exitCode, 2);
}

} // namespace
} // namespace llamafit
