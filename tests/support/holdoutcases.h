#pragma once
// The seeded random holdout (issue 30 item 7): cases no sizing rule was written from, drawn from
// a fixed seed so that the recordings (tests/data/recorded/holdout-b11669,
// scripts/record-server-runs.sh --backend holdout-cpu|holdout-vulkan|holdout-rpc) and the
// recorded test (tests/unit/recorded/recordedholdout_test.cpp) always mean the same cases.
//
// Each case: an architecture of tests/data/holdout (round robin per backend over the tables of
// the case's round, shapegeometry.h), one of its real
// geometries (shapegeometry.h: the shape rewritten to that model's widths), a random block count
// that keeps every kind of layer, and random settings -- -ub 32..4096 with -b >= -ub, -np 1..8 or
// auto, -kvu/-no-kvu, every K/V type pair llama-server takes, -fa on/off/auto, -c, and per backend
// -ngl 0/part/all, -nkvo, --swa-full, -cmoe/-ncmoe/-ot, -ts -- on one of three backends: the CPU
// build, llama-server's Vulkan backend on lavapipe (the estimate told lavapipeDevice()), or
// llama-server --rpc with one or two ggml-rpc-server -d CPU on loopback (rpccases.h).
//
// Memory: a draw is kept only when the core's own estimate (weights and KV are exact) says the run
// stays cheap on the recording machine -- lavapipe's Vulkan0 weights, caches and outputs at most 1.8 GiB (not
// its compute buffer, which the holdout measures), KV + RS at most 3 GiB, each RPC server's weights at
// most 1.5 GiB (for settings the estimate refuses, all the weights at most 1.5 GiB a server: the
// server loads them before it refuses) -- else the case draws again from its own generator. Deterministic and
// portable: std::mt19937_64 seeded per case index, and the distributions written here
// (std::uniform_int_distribution differs between standard libraries, and the Windows build runs the core
// tests too). Test support only.

#include "tests/support/integrationcases.h"
#include "tests/support/rpccases.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit::test {

inline constexpr std::uint64_t kHoldoutSeed = 20261206;

enum class HoldoutBackend { Cpu, Vulkan, Rpc };
// "cpu", "vulkan", "rpc": the case names' last part.
std::string holdoutBackendName(HoldoutBackend backend);

struct HoldoutCase {
    std::uint32_t index = 0; // h000 ..: the case's seed is kHoldoutSeed + index
    HoldoutBackend backend = HoldoutBackend::Cpu;
    std::string geometry; // "qwen2/qwen2.5-7b"
    // The shape (named "h017_qwen3moe", geometry and cut set), "cpu"/"vulkan"/"rpc" as settings
    // name, the settings (RPC: the recorded endpoints of rpccases.h) and the devices the
    // estimate is told about (Vulkan: lavapipeDevice(); RPC: from the run's log, devicesFromLog).
    IntegrationCase matrixCase;
    std::string name() const { return matrixCase.name(); } // "h017_qwen3moe_vulkan"
};

// Every case, in index order: the CPU ones, then the Vulkan ones, then the RPC ones.
const std::vector<HoldoutCase>& holdoutCases();
// The live runners' views (tests/integration/holdoutserver_test.cpp).
std::vector<IntegrationCase> holdoutIntegrationCases(HoldoutBackend backend);
std::vector<RpcCase> holdoutRpcCases();

} // namespace llamafit::test
