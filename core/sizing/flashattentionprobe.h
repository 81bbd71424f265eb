#pragma once
// -fa auto after the layers are placed. llama-server resolves "auto" with a probe graph of one token per
// slot: a FLASH_ATTN_EXT node the scheduler puts on another device than its layer's turns flash attention
// off ("resolve_fused_ops: layer 8 is assigned to device CPU but Flash Attention is assigned to device
// Vulkan0", src/llama-context.cpp resolve_fused_ops). Measured with the real server on lavapipe: LFM2
// (short convolutions and attention layers) with a partial -ngl loses flash attention exactly when its
// last host layer is an attention layer (-ngl 8, 11, 14: off; -ngl 7, 9, 10, 12: on); dense models keep it
// (qwen3, gemma3, cohere2 -ngl part: on). Jamba (Mamba-1 and attention) does the same: its 6-block shape
// with attention at layer 4 loses it at -ngl 2 and keeps it at -ngl 3, 4 and 5. Other hybrids are not
// measured there and keep it. Internal to core/sizing (estimator.cpp).

#include "core/model/modelinfo.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/serversettings.h"

namespace llamafit {

// Whether flash attention stays on; `resolved` = contextresolver.cpp's answer before placement.
bool flashAttentionAfterProbe(const ModelInfo& model, const ServerSettings& settings,
                              const LayerPlacement& layers, bool resolved);

} // namespace llamafit
