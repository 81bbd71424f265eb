// Runs the built llamafit-cli for `machines` and `plan`: the built-in profiles, the seed plan
// (fits, 32/32 recommended, Vulkan's 46,522 MiB explained), a profile file, and named errors.

#include "core/common/units.h"
#include "core/machine/machineprofile.h"

#include "tests/support/commandrun.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace llamafit {
namespace {

using Json = nlohmann::json;

struct PlanRun {
    int exitCode = -1;
    Json json;
    std::string text;
};

// stdout only; stderr goes to the test's own stderr.
PlanRun runPlanCli(const std::string& arguments) {
    test::CommandRun ran = test::runShellCommand(test::shellQuote(LLAMAFIT_CLI_PATH) + " " + arguments);
    PlanRun run{ran.exitCode, Json::parse(ran.out, nullptr, false), std::move(ran.out)};
    return run;
}

constexpr const char* kSeedFlags = "plan --json -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0";
// The seed's machine named explicitly, so the tests do not depend on what this machine has.
const std::string kSeed = std::string(kSeedFlags) + " --machine gmktec-evo-x2-64gb-32-32";

TEST(PlanCommand, MachinesListsTheBuiltins) {
    const PlanRun run = runPlanCli("machines --json");
    ASSERT_EQ(run.exitCode, 0);
    ASSERT_TRUE(run.json.contains("machines")) << run.text;
    ASSERT_EQ(run.json["machines"].size(), 5u);
    const Json& evo = run.json["machines"][0];
    EXPECT_EQ(evo["id"], "gmktec-evo-x2-64gb-32-32");
    EXPECT_TRUE(evo["apu"].get<bool>());
    EXPECT_EQ(evo["bios_split"]["carve_out_bytes"].get<std::uint64_t>(), 32 * kGiB);
    EXPECT_FALSE(evo["sources"].empty());
    const PlanRun text = runPlanCli("machines");
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.text.find("rtx-3090-24gb"), std::string::npos);
}

TEST(PlanCommand, SeedPlanFitsAndRecommends32Of32) {
    const PlanRun run = runPlanCli(kSeed);
    ASSERT_EQ(run.exitCode, 0) << run.text;
    const Json& json = run.json;
    EXPECT_EQ(json["verdict"], "fits");
    EXPECT_EQ(json["machine"]["id"], "gmktec-evo-x2-64gb-32-32");
    EXPECT_EQ(json["bios_split"]["recommended_carve_out_bytes"].get<std::uint64_t>(), 32 * kGiB);
    // The core's advice values, worded in English by the CLI (the GUI words them with tr()).
    const std::string reason = json["bios_split"]["reason"].get<std::string>();
    EXPECT_EQ(reason.rfind("32 GiB VRAM / 32 GiB system leaves the most system RAM (", 0), 0u) << reason;
    EXPECT_NE(
        reason.find(" free even when the prompt cache and checkpoints are full) while the GPU side keeps "),
        std::string::npos)
        << reason;
    EXPECT_NE(reason.find(" is too small for the model"), std::string::npos) << reason;
    EXPECT_EQ(json["backend"][0]["reported_free_bytes"].get<std::uint64_t>(), 46522 * kMiB);
    EXPECT_NE(json["backend"][0]["explanation"].get<std::string>().find("46,522 MiB"), std::string::npos);
    const Json& carve = json["pools"][0];
    EXPECT_EQ(carve["kind"], "apu-carve-out");
    EXPECT_GT(carve["at_load_bytes"].get<std::uint64_t>(), 28 * kGiB);
    EXPECT_LT(carve["at_load_bytes"].get<std::uint64_t>(), 29 * kGiB + 512 * kMiB);
    EXPECT_GT(json["decode"]["tokens_per_second"].get<double>(), 53.6);
    EXPECT_TRUE(json["estimate"].contains("devices"));

    const PlanRun text = runPlanCli(
        "plan -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0 --machine gmktec-evo-x2-64gb-32-32");
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.text.find("current, recommended"), std::string::npos) << text.text;
    EXPECT_NE(text.text.find("Verdict   fits"), std::string::npos);
}

TEST(PlanCommand, MachineFromAProfileFileAndTypedCarveOuts) {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("llamafit-plan-" + std::to_string(::getpid()) + ".json");
    Machine machine = *findBuiltinMachine("gmktec-evo-x2-64gb-32-32");
    machine.id = "my-box";
    ASSERT_TRUE(saveMachineProfile(machine, path.string()).ok());
    const PlanRun run = runPlanCli(std::string(kSeedFlags) + " --machine '" + path.string() +
                                   "' --carve-outs 24,40 --margin-mib 512");
    std::filesystem::remove(path);
    ASSERT_EQ(run.exitCode, 0) << run.text;
    EXPECT_EQ(run.json["machine"]["id"], "my-box");
    EXPECT_EQ(run.json["machine"]["chosen_because"], "--machine " + path.string());
    EXPECT_EQ(run.json["margin_bytes"].get<std::uint64_t>(), 512 * kMiB);
    EXPECT_EQ(run.json["bios_split"]["splits"].size(), 3u);
}

// Without --machine, plan runs device discovery like `devices` and takes the detected machine
// when it has a GPU llama.cpp can use, else the EVO-X2 profile; it says which and why. On a
// machine whose only Vulkan device is lavapipe (CI) that is the EVO-X2 profile.
TEST(PlanCommand, WithoutMachineUsesDiscoveryOrTheSeedProfile) {
    const PlanRun devices = runPlanCli("devices --json");
    ASSERT_EQ(devices.exitCode, 0) << devices.text;
    bool hasGpu = false;
    std::string cpuDevice;
    for (const Json& gpu : devices.json["gpus"]) {
        hasGpu = hasGpu || gpu["llama_cpp"]["used"].get<bool>();
        if (gpu["type"] == "cpu") {
            cpuDevice = gpu["name"].get<std::string>();
        }
    }
    const PlanRun run = runPlanCli(kSeedFlags);
    ASSERT_EQ(run.exitCode, 0) << run.text;
    const std::string because = run.json["machine"]["chosen_because"].get<std::string>();
    if (hasGpu) {
        EXPECT_EQ(run.json["machine"]["id"], "detected");
        EXPECT_NE(because.find("detected"), std::string::npos) << because;
    } else {
        EXPECT_EQ(run.json["machine"]["id"], defaultMachineId());
        EXPECT_NE(because.find("found no GPU"), std::string::npos) << because;
        EXPECT_NE(because.find(std::string(defaultMachineId())), std::string::npos) << because;
        if (!cpuDevice.empty()) {
            EXPECT_NE(because.find(cpuDevice + " is a CPU-type Vulkan device"), std::string::npos) << because;
        }
        EXPECT_EQ(run.json["bios_split"]["recommended_carve_out_bytes"].get<std::uint64_t>(), 32 * kGiB);
    }
    const PlanRun text = runPlanCli("plan -m qwen3.5-35b-a3b-q6_k -c 65536 -ctk q8_0 -ctv q8_0");
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.text.find("          chosen: " + because), std::string::npos) << text.text;
}

// Discovery pointed at the EVO-X2 fixture tree (amdgpu sysfs only): a GPU is found, so the plan
// is for the detected machine, and the output says so.
TEST(PlanCommand, DetectedMachineFromAFixtureTree) {
    const std::filesystem::path machine = std::filesystem::path(LLAMAFIT_TEST_SYSFS_DIR) / "evo-x2-64g-32-32";
    const PlanRun run = runPlanCli(std::string(kSeedFlags) + " --no-vulkan --no-nvml --proc-dir '" +
                                   (machine / "proc").string() + "' --drm-dir '" +
                                   (machine / "sys/class/drm").string() + "'");
    ASSERT_EQ(run.exitCode, 0) << run.text;
    EXPECT_EQ(run.json["machine"]["id"], "detected");
    const std::string because = run.json["machine"]["chosen_because"].get<std::string>();
    EXPECT_NE(because.find("found a GPU"), std::string::npos) << because;
    EXPECT_NE(because.find("amdgpu card1"), std::string::npos) << because;
    ASSERT_FALSE(run.json["pools"].empty());
}

TEST(PlanCommand, ErrorsAreNamed) {
    PlanRun run = runPlanCli(std::string(kSeedFlags) + " --machine no-such-box 2>/dev/null");
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(run.json["error"]["code"], "machine.unknown-profile");
    run = runPlanCli(std::string(kSeed) + " --gpu cuda=8192 2>/dev/null");
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(run.json["error"]["code"], "cli.conflicting-options");
    run = runPlanCli(std::string(kSeed) + " --carve-outs 16GB 2>/dev/null");
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(run.json["error"]["code"], "machine.bad-value");
    run = runPlanCli(std::string(kSeedFlags) + " --machine cpu-only --carve-outs 16 2>/dev/null");
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_EQ(run.json["error"]["code"], "cli.bad-value");
}

} // namespace
} // namespace llamafit

namespace llamafit {
namespace {

// Issue 15 item 2: plan and estimate carry speed.decode_tps_bound / decode_tps_expected /
// prompt_tps_expected / source. XDG_DATA_HOME points at an empty folder, so no stored benchmark
// of this machine changes the efficiency: the public defaults are used and said so.
TEST(PlanCommand, SpeedFieldsInPlanAndEstimate) {
    char folder[] = "/tmp/llamafit-speed-XXXXXX";
    ASSERT_NE(::mkdtemp(folder), nullptr);
    const std::string env = std::string("XDG_DATA_HOME=") + folder + " ";
    test::CommandRun ranPlan =
        test::runShellCommand(env + test::shellQuote(LLAMAFIT_CLI_PATH) + " " + kSeed + " --fill 512");
    const PlanRun plan{ranPlan.exitCode, Json::parse(ranPlan.out, nullptr, false), ranPlan.out};
    ASSERT_EQ(plan.exitCode, 0) << plan.text;
    const Json& speed = plan.json["speed"];
    ASSERT_TRUE(speed.is_object()) << plan.text;
    EXPECT_EQ(speed["filled_tokens"], 512);
    const double bound = speed["decode_tps_bound"].get<double>();
    const double expected = speed["decode_tps_expected"].get<double>();
    EXPECT_NEAR(bound, plan.json["decode"]["tokens_per_second"].get<double>(), 1e-6);
    EXPECT_LT(expected, bound);
    // Seed 000 measured 53.6 t/s here.
    EXPECT_NEAR(expected, 53.6, 53.6 * 0.25);
    EXPECT_GT(speed["prompt_tps_expected"].get<double>(), 0);

    test::CommandRun estimate = test::runShellCommand(
        env + test::shellQuote(LLAMAFIT_CLI_PATH) +
        " estimate --json -m llama-3-8b-q4_k_m -c 32768 -np 1 --bandwidth-gbs 272 --gpu cuda=8192");
    ASSERT_EQ(estimate.exitCode, 0) << estimate.out;
    const Json estimateSpeed = Json::parse(estimate.out)["speed"];
    EXPECT_EQ(estimateSpeed["source"], "public-defaults");
    // Seed 003: 272 GB/s / (4.9 GB + 4 GiB of f16 KV at 32K) = 30 t/s at most.
    EXPECT_NEAR(estimateSpeed["decode_tps_bound"].get<double>(), 30, 1.5);
    EXPECT_TRUE(estimateSpeed["prompt_tps_expected"].is_null());
    const PlanRun noBandwidth = runPlanCli("estimate --json -m llama-3-8b-q4_k_m");
    EXPECT_EQ(noBandwidth.json["speed"]["source"], "no-bandwidth");
    EXPECT_TRUE(noBandwidth.json["speed"]["decode_tps_bound"].is_null());
    std::filesystem::remove_all(folder);
}

} // namespace
} // namespace llamafit
