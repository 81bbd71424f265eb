// The sequences below were read from the plans of llama-server 0.7.0 (b11669) on lavapipe
// (scripts/alloc-plan/sequence.py over run-case.sh: the cases offloadedmamba.h names). The
// rules they follow are ggml-alloc's (recurrentreplay.h): the weight MULs, the bias ADDs, silu
// and y + x * D run in place.
#include "core/sizing/offloadedmamba.h"

#include "core/sizing/recurrentreplay.h"

#include <algorithm>
#include <array>
#include <utility>

namespace llamafit {

OffloadedLayerWeights hostLayerWeights(const ModelInfo& model, std::size_t il) {
    OffloadedLayerWeights w;
    w.attentionNorm = model.blockTensorBytes(il, "attn_norm.weight");
    w.input = model.blockTensorBytes(il, "ssm_in.weight");
    w.conv = model.blockTensorBytes(il, "ssm_conv1d.weight");
    w.convBias = model.blockTensorBytes(il, "ssm_conv1d.bias");
    w.projection = model.blockTensorBytes(il, "ssm_x.weight");
    w.dt = model.blockTensorBytes(il, "ssm_dt.weight");
    w.dtBias = model.blockTensorBytes(il, "ssm_dt.bias");
    w.dtNorm = model.blockTensorBytes(il, "ssm_dt_norm.weight");
    w.bNorm = model.blockTensorBytes(il, "ssm_b_norm.weight");
    w.cNorm = model.blockTensorBytes(il, "ssm_c_norm.weight");
    w.skip = model.blockTensorBytes(il, "ssm_d");
    w.norm = model.blockTensorBytes(il, "ssm_norm.weight");
    w.output = model.blockTensorBytes(il, "ssm_out.weight");
    w.query = model.blockTensorBytes(il, "attn_q.weight");
    w.key = model.blockTensorBytes(il, "attn_k.weight");
    w.value = model.blockTensorBytes(il, "attn_v.weight");
    w.attentionOutput = model.blockTensorBytes(il, "attn_output.weight");
    w.feedForwardNorm =
        model.blockTensorBytes(il, "ffn_norm.weight") + model.blockTensorBytes(il, "ffn_norm");
    w.gate = model.blockTensorBytes(il, "ffn_gate.weight");
    w.up = model.blockTensorBytes(il, "ffn_up.weight");
    w.down = model.blockTensorBytes(il, "ffn_down.weight");
    w.router = model.blockTensorBytes(il, "ffn_gate_inp.weight");
    return w;
}

std::optional<std::size_t> leadingHostBlocks(const LayerPlacement& layers, std::size_t blocks) {
    if (layers.layerDevice.size() < blocks) {
        return std::nullopt;
    }
    const auto firstGpu = std::find_if(layers.layerDevice.begin(),
                                       layers.layerDevice.begin() + static_cast<std::ptrdiff_t>(blocks),
                                       [](int device) { return device != kHostDevice; });
    const std::size_t host = static_cast<std::size_t>(firstGpu - layers.layerDevice.begin());
    for (std::size_t il = host; il < blocks; ++il) {
        if (layers.layerDevice[il] != layers.layerDevice[host]) {
            return std::nullopt;
        }
    }
    return host == 0 ? std::nullopt : std::optional<std::size_t>(host);
}

std::optional<OffloadedMambaTwo> offloadedMambaTwo(const ModelInfo& model, const KvPlan& kv,
                                                   const LayerPlacement& layers) {
    // The shape as with flash attention: a host layer's attention runs on the CPU either way.
    std::optional<MambaTwoStack> stack = mambaTwoStack(model, kv, true);
    const std::size_t blocks = stack ? stack->layers.size() : 0;
    if (!stack) {
        return std::nullopt;
    }
    const std::optional<std::size_t> host = leadingHostBlocks(layers, blocks);
    if (!host) {
        return std::nullopt;
    }
    OffloadedMambaTwo split;
    split.stack = std::move(*stack);
    for (std::size_t il = 0; il < *host; ++il) {
        split.hostLayers.push_back(hostLayerWeights(model, il));
    }
    split.deviceLayers = static_cast<std::uint32_t>(blocks - *host);
    return split;
}

std::uint64_t offloadedMambaTwoBytes(const OffloadedMambaTwo& split, std::uint32_t ubatchTokens,
                                     std::uint32_t sequences, std::uint32_t outputs) {
    const MambaTwoStack& stack = split.stack;
    const RecurrentBlockShape& s = stack.ssm;
    const std::size_t hostLayers = split.hostLayers.size();
    const std::size_t blocks = hostLayers + split.deviceLayers;
    if (s.kind != RecurrentBlockKind::Mamba2 || hostLayers == 0 || blocks > stack.layers.size() ||
        ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    using Layer = MambaTwoStack::Layer;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t projected = 2 * di + 2 * s.groups * s.state + s.heads; // z, xBC, dt
    const std::uint64_t convStates = (s.convKernel - 1) * conv * r.seqs;
    const std::uint64_t convWindow = conv * (t / r.seqs + s.convKernel - 1) * r.seqs; // concat(states, x^T)
    const std::uint64_t ssmState = s.state * di;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);
    const auto weight = [&](std::uint64_t bytes) { return r.alloc.allocate(bytes); };
    const auto isMamba = [&](std::size_t b) { return b < blocks && stack.layers[b] == Layer::Mamba; };
    // The next Mamba-2 layer after `b`, or `blocks`.
    const auto nextMamba = [&](std::size_t b) {
        std::size_t next = b + 1;
        while (next < blocks && !isMamba(next)) {
            ++next;
        }
        return next;
    };
    // Whether layer `b` takes the next Mamba-2 block's conv rows: the first layer after it that is
    // not a plain FFN is one (mambaondevice.h).
    const auto takesNextRows = [&](std::size_t b) {
        std::size_t next = b + 1;
        while (next < blocks && stack.layers[next] == Layer::FeedForward) {
            ++next;
        }
        return isMamba(next);
    };
    std::size_t lastAttention = blocks;
    for (std::size_t b = 0; b < blocks; ++b) {
        lastAttention = stack.layers[b] == Layer::Attention ? b : lastAttention;
    }
    std::size_t lastMamba = blocks;
    for (std::size_t b = 0; b < blocks; ++b) {
        lastMamba = isMamba(b) ? b : lastMamba;
    }
    const bool deviceMamba = lastMamba != blocks && lastMamba >= hostLayers;
    const bool deviceAttention =
        std::find(stack.layers.begin() + static_cast<std::ptrdiff_t>(hostLayers),
                  stack.layers.begin() + static_cast<std::ptrdiff_t>(blocks),
                  Layer::Attention) != stack.layers.begin() + static_cast<std::ptrdiff_t>(blocks);

    Block residual = r.take(s.embd * t); // the token embeddings, looked up on the host
    Block stateCopyIds{};                // rs_s_copy: the device blocks' conv rows follow it
    bool stateCopyIdsTaken = false;
    std::array<Block, 2> stateCopyViews{};
    Block outputIds{};
    std::array<Block, 3> cacheInputs{}; // K and V row indices, the f16 mask: freed after the last attention
    Block convRows{}; // the next device Mamba-2 block's conv states, taken one Mamba-2 block ahead
    const auto takeConvRows = [&](std::size_t next) {
        if (!stateCopyIdsTaken) {
            stateCopyIds = r.alloc.allocate(4 * r.seqs);
            stateCopyIdsTaken = true;
        }
        convRows = r.take(convStates);
        if (next == lastMamba) {
            r.alloc.release(stateCopyIds); // its last reader
        }
    };
    // The GPU's graph inputs arrive with the last host layer's output projection: its KV cache's
    // inputs, the state-copy ids (unless a host layer took them with the first device block's conv
    // rows) and views of them, the output ids.
    const auto deviceInputs = [&](std::size_t b) {
        if (b + 1 != hostLayers || hostLayers == blocks) {
            return;
        }
        const auto stateCopies = [&] {
            if (deviceMamba) {
                stateCopyViews = {r.alloc.allocate(4 * r.seqs), r.alloc.allocate(4 * r.seqs)};
            }
        };
        if (stateCopyIdsTaken) {
            stateCopies();
        }
        if (deviceAttention) { // as replayCacheInputs, with flash attention
            cacheInputs = {r.alloc.allocate(8 * t), r.alloc.allocate(8 * t),
                           r.alloc.allocate(2 * stack.maskCells * t)};
        }
        if (!stateCopyIdsTaken && deviceMamba) {
            stateCopyIds = r.alloc.allocate(4 * r.seqs);
            stateCopyIdsTaken = true;
            stateCopies();
        }
        outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
    };
    // The last block keeps its output rows only: the residual's and the block output's, added in
    // place.
    const auto outputRows = [&](Block out, Block residualRows) {
        const Block outRows = r.take(s.embd * rows);
        r.drop(out);
        r.alloc.release(outputIds);
        r.drop(residualRows, outRows);
    };
    // An FFN: its norm, then gate and up and the GLU (or relu² up, squared in place), then down;
    // a host layer's weights are copied in one at a time. The residual add runs in place into its
    // output.
    const auto feedForward = [&](std::size_t b, const OffloadedLayerWeights* w) {
        const bool gated = stack.feedForwardAfterEach;
        const auto copied = [&](std::uint64_t bytes) { return w != nullptr ? weight(bytes) : Block{}; };
        const Block norm = r.take(s.embd * t);
        if (w != nullptr) {
            r.passing(w->feedForwardNorm);
        }
        Block gate{};
        if (gated) {
            const Block gateWeight = copied(w != nullptr ? w->gate : 0);
            gate = r.take(stack.feedForward * t);
            r.alloc.release(gateWeight);
        }
        const Block upWeight = copied(w != nullptr ? w->up : 0);
        const Block up = r.take(stack.feedForward * t);
        r.alloc.release(upWeight);
        r.drop(norm);
        Block activated = up;
        if (gated) {
            activated = r.take(stack.feedForward * t);
            r.drop(gate, up);
        }
        const Block downWeight = copied(w != nullptr ? w->down : 0);
        deviceInputs(b);
        const Block out = r.take(s.embd * t);
        r.alloc.release(downWeight);
        r.drop(activated);
        r.drop(residual);
        residual = out;
    };

    for (std::size_t b = 0; b < hostLayers; ++b) {
        const OffloadedLayerWeights& w = split.hostLayers[b];
        const Layer layer = stack.layers[b];
        const bool last = b + 1 == blocks;
        if (layer == Layer::FeedForward) {
            if (last) {
                break; // the output rows only
            }
            feedForward(b, &w);
            continue;
        }
        const Block norm = r.take(s.embd * t);
        r.passing(w.attentionNorm);
        Block out;
        if (layer == Layer::Attention) {
            // Q, V and K leave for the CPU, which attends over the host cache (no RoPE in these
            // builders); its output comes back for the output projection.
            const Block queryWeight = weight(w.query);
            const Block q = r.take(stack.queryValues * t);
            r.alloc.release(queryWeight);
            const Block valueWeight = weight(w.value);
            const Block v = r.take(stack.keyValues * t);
            r.alloc.release(valueWeight);
            const Block keyWeight = weight(w.key);
            const Block k = r.take(stack.keyValues * t);
            r.alloc.release(keyWeight);
            r.drop(norm);
            r.drop(k, v, q);
            if (last) {
                break;
            }
            const Block outputWeight = weight(w.attentionOutput);
            const Block attended = r.take(stack.queryValues * t);
            if (!stack.feedForwardAfterEach) {
                deviceInputs(b);
            }
            out = r.take(s.embd * t);
            r.alloc.release(outputWeight);
            r.drop(attended);
        } else {
            // A host Mamba-2 block before a device one takes that block's conv rows.
            const bool beforeDevice = takesNextRows(b) && nextMamba(b) >= hostLayers;
            const Block inputWeight = weight(w.input);
            const Block hostConvRows = r.take(convStates); // the host's conv states, copied in
            const Block zxBCdt = r.take(projected * t);
            r.alloc.release(inputWeight);
            r.drop(norm);
            const Block convX = r.take(convWindow);
            r.drop(hostConvRows);
            const Block convWeight = weight(w.conv);
            const Block xBC = r.take(conv * t); // ssm_conv; bias and silu in place
            r.drop(convX);
            r.alloc.release(convWeight);
            r.passing(w.convBias);
            r.drop(r.take(s.heads * t)); // cont(dt), bias in place: it leaves for the CPU's scan
            r.passing(w.dtBias);
            Block skip;
            Block y;
            Block z;
            if (beforeDevice) {
                takeConvRows(nextMamba(b));
                z = r.take(di * t); // cont(z)
                r.drop(zxBCdt);
                skip = weight(w.skip);
                y = r.take(di * t); // the scan's y, copied back
            } else {
                skip = weight(w.skip);
                y = r.take(di * t);
                z = r.take(di * t);
                r.drop(zxBCdt);
            }
            const Block xD = r.take(di * t);
            r.drop(xBC);
            r.alloc.release(skip);
            r.drop(xD); // added into y in place
            const Block gated = r.take(di * t);
            r.drop(z, y);
            const Block normed = r.take(di * t); // the grouped RMS norm; its weight's MUL in place
            r.drop(gated);
            r.passing(w.norm);
            const Block outputWeight = weight(w.output);
            if (!stack.feedForwardAfterEach) {
                deviceInputs(b);
            }
            if (last) {
                outputIds = r.alloc.allocate(4 * std::uint64_t{outputs});
            }
            out = r.take(s.embd * t); // ssm_out
            r.alloc.release(outputWeight);
            r.drop(normed);
        }
        if (last) {
            const Block residualRows = r.take(s.embd * rows);
            r.drop(residual);
            outputRows(out, residualRows);
            return r.alloc.peakBytes();
        }
        r.drop(residual); // the residual add in place into the layer's output
        residual = out;
        if (stack.feedForwardAfterEach) {
            feedForward(b, &w);
        }
    }

    // The GPU's own layers, in the order the scheduler plans a split of their own.
    for (std::size_t b = hostLayers; b < blocks; ++b) {
        const bool last = b + 1 == blocks;
        const Layer layer = stack.layers[b];
        if (layer == Layer::FeedForward) {
            if (last) {
                break;
            }
            feedForward(b, nullptr);
            continue;
        }
        const Block norm = r.take(s.embd * t);
        if (layer == Layer::Attention) {
            const Block q = r.take(stack.queryValues * t);
            const Block v = r.take(stack.keyValues * t);
            const Block k = r.take(stack.keyValues * t);
            r.drop(norm);
            const bool finalAttention = b == lastAttention;
            r.drop(k); // stored into the cache, as V is
            if (finalAttention) {
                r.alloc.release(cacheInputs[0]);
            }
            r.drop(v);
            if (finalAttention) {
                r.alloc.release(cacheInputs[1]);
            }
            Block residualRows{};
            if (last) {
                residualRows = r.take(s.embd * rows);
                r.drop(residual);
            }
            const Block attended = r.take(stack.queryValues * t);
            r.drop(q);
            if (finalAttention) {
                r.alloc.release(cacheInputs[2]);
            }
            if (takesNextRows(b)) {
                takeConvRows(nextMamba(b));
            }
            const Block out = r.take(s.embd * t);
            r.drop(attended);
            if (last) {
                outputRows(out, residualRows);
                break;
            }
            r.drop(residual);
            residual = out;
        } else {
            const bool finalMamba = b == lastMamba;
            const Block zxBCdt = r.take(projected * t);
            r.drop(norm);
            const Block convX = r.take(convWindow);
            r.drop(convRows);
            const Block dt = r.take(s.heads * t);
            const Block gathered = r.take(ssmState * (r.seqs - 1)); // build_rs: the other slots' states
            if (finalMamba) {
                r.alloc.release(stateCopyViews[0]);
            }
            const Block xBC = r.take(conv * t);
            r.drop(convX);
            const Block scanned = r.take(di * t + ssmState * r.seqs); // y and the final states
            r.drop(dt);
            if (finalMamba) {
                r.alloc.release(stateCopyViews[1]);
            } else {
                r.drop(gathered);
                if (takesNextRows(b)) {
                    takeConvRows(nextMamba(b));
                }
            }
            const Block z = r.take(di * t);
            r.drop(zxBCdt);
            const Block xD = r.take(di * t); // y + x * D in place on it
            r.drop(xBC);
            Block residualRows{};
            if (finalMamba) {
                r.drop(gathered);
            }
            if (last) {
                residualRows = r.take(s.embd * rows);
                r.drop(residual);
            }
            // Without the next block's conv rows between them, the scan's final states are stored
            // after the gate.
            const bool scanLate = !takesNextRows(b) && !last;
            if (!scanLate) {
                r.drop(scanned);
            }
            const Block gated = r.take(di * t);
            r.drop(z, xD);
            if (scanLate) {
                r.drop(scanned);
            }
            const Block normed = r.take(di * t);
            r.drop(gated);
            const Block out = r.take(s.embd * t);
            r.drop(normed);
            if (last) {
                outputRows(out, residualRows);
                break;
            }
            r.drop(residual);
            residual = out;
        }
        if (stack.feedForwardAfterEach && !last) {
            feedForward(b, nullptr);
        }
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit
