#pragma once
// The host's compute buffer while the CPU scans the Mamba blocks whose state is in host memory (any
// Mamba-2 model: mamba2, granitehybrid, nemotron_h, falcon-h1; Mamba-1), op offload or not: the graph
// inputs (tokens, embeddings, the state-copy ids, one KV cache's inputs when `cacheCells` > 0, the
// output ids and the embedding rows the GPU takes), then copies of the scan's x, dt, B and C, and
// the scan's y and final states. Read from the host plans of mamba2_ngl0_np1 ("Vulkan_Host compute
// buffer size = 21.74 MiB", the same with -ngl 12), granitehybrid_ngl0_np1 (25.75),
// nemotron_h_l6_ngl0_np1 (123.94), mamba_ngl0_np1 (13.60, the same with -ngl 12) and
// falcon_h1_ngl_part_np1 (23.25, with its attention on the CPU beside the scan), whose peaks
// are all at the first scan. `valueRowValues`: the V row width the V store indexes without flash
// attention. Internal to core/sizing (gpucompute.cpp); bytes.

#include "core/sizing/recurrentcompute.h"

#include <cstdint>

namespace llamafit {

struct HostScanInputs {
    std::uint64_t cacheCells = 0; // the KV cache's cells; 0 without attention layers
    std::uint64_t valueRowValues = 0;
    bool flashAttention = true;
    // A routed MoE whose expert tensors the GPU refuses (Jamba): after the scans the CPU runs its
    // experts over copies of the FFN norm, the chosen experts and their weights, above the DUP the
    // graph start left (jamba_l6_ngl0_np1 and _ngl_part_np1's host plans: 212.02 MiB, where the
    // closed form's inputs plus three expert rows gave 188.02). 0: no such MoE.
    std::uint64_t experts = 0;           // n_expert
    std::uint64_t expertsUsed = 0;       // n_expert_used
    std::uint64_t expertFeedForward = 0; // n_ff of one expert
};
std::uint64_t hostMambaScanBytes(const RecurrentBlockShape& ssm, std::uint32_t ubatchTokens,
                                 std::uint32_t sequences, std::uint32_t outputs,
                                 const HostScanInputs& inputs);

} // namespace llamafit
