#pragma once
// The seeded random holdout of llama.cpp's fit (issue 30: "fit --as-llama-server equals
// llama-fit-params in every case where llama-fit-params completes, random cases included"):
// fit cases (fitcases.h) no rule of the replica was written from, drawn from a fixed seed so that
// their recordings (tests/data/fit-recorded/b11669/f*.txt, written by the live FitParamsLive
// Holdout suite with LLAMAFIT_RECORD_FIT_DIR) and the recorded test always mean the same cases.
//
// Each case: an architecture of tests/data/holdout (round robin per rig over the tables of the
// case's round, shapegeometry.h), one of its real
// geometries (shapegeometry.h) cut to a random block count that keeps every kind of layer, on one
// of the three rigs (the CPU build, lavapipe's Vulkan0, two ggml-rpc-server -d CPU), with random
// flags: -c unset, 0 or set; -np; -ub; -fa; K/V cache types; -fitc; --swa-full; and per rig the
// room fit may use -- the CPU and RPC rigs' -fitt leaves a random multiple of the model's weights
// (leaveMiB), lavapipe's a random -fitt -- and on lavapipe sometimes -nkvo, --cpu-moe or a user's
// -ngl (after which fit stops: "n_gpu_layers already set by user"). Deterministic and portable
// (seededdraw.h). Test support only.

#include "tests/support/fitcases.h"

#include <cstdint>
#include <vector>

namespace llamafit::test {

inline constexpr std::uint64_t kFitHoldoutSeed = 20261207;

// Every case, in index order ("f000_qwen2_cpu" ..): the CPU ones, then lavapipe's, then RPC's.
const std::vector<FitCase>& fitHoldoutCases();

} // namespace llamafit::test
