#pragma once
// The vision projectors' warm-up graphs, written for GraphReplay in the order llama.cpp 0.7.0
// builds them (tools/mtmd/clip.cpp clip_graph::build_inp / build_attn / build_ffn and
// tools/mtmd/models/siglip.cpp, qwen2vl.cpp), to find the compute buffer the warm-up reserves.
// Each was checked node by node against the graphs the server hands to ggml-alloc (dumped with
// scripts/alloc-plan/allocdump.c). Internal to core/sizing; bytes.

#include "core/model/projectorinfo.h"

#include <cstdint>

namespace llamafit {

// The compute buffer of one warm-up image of imageSide x imageSide pixels.
std::uint64_t projectorGraphBytes(const ProjectorInfo& projector, std::uint32_t imageSide,
                                  bool flashAttention);

} // namespace llamafit
