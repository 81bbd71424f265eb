// The sequence below was read tensor by tensor from the Vulkan0 plan of llama-server 0.7.0
// (b11669) on lavapipe: scripts/alloc-plan/run-case.sh mamba_ngl_all, then galloc_replay.py.
// Graph: src/models/mamba.cpp and build_mamba_layer in src/models/mamba-base.cpp.
#include "core/sizing/mambaondevice.h"

#include "core/sizing/recurrentreplay.h"
#include "core/sizing/reservetokens.h"

#include <algorithm>
#include <array>
#include <string>

namespace llamafit {

std::uint64_t mambaOneDeviceComputeBytes(const RecurrentBlockShape& s, std::uint32_t blocks,
                                         std::uint32_t ubatchTokens, std::uint32_t sequences,
                                         std::uint32_t outputs) {
    if (s.kind != RecurrentBlockKind::Mamba1 || blocks == 0 || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t rows = std::min<std::uint64_t>(std::max<std::uint32_t>(outputs, 1), t);

    // The host's inputs arrive first: the mixed-embedding path's two rows and its slot ids, the
    // state-copy ids, the token embeddings (the residual, added to in place) and the DUP the
    // mixed path keeps alive to the end.
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd,
        [&] {
            r.alloc.allocate(4 * r.seqs); /* rs_s_copy */
        },
        [] {});
    const Block residual = start.residual;

    Block convRows;       // the block's conv states (get_rows), taken during the block before
    Block stateCopyIds{}; // the s_copy view the scan's state rows follow
    for (std::uint32_t block = 0; block < blocks; ++block) {
        const bool last = block + 1 == blocks;
        const Block norm = r.take(s.embd * t); // the weight's MUL in place
        if (block == 0) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        const Block xz = r.take(2 * di * t); // ssm_in
        r.drop(norm);
        if (block == 0) {
            convRows = r.take((s.convKernel - 1) * di * r.seqs);
        }
        const Block convX = r.take(di * (t / r.seqs + s.convKernel - 1) * r.seqs); // concat(states, x^T)
        r.drop(convRows);
        const Block x = r.take(di * t); // ssm_conv; bias add and silu in place
        r.drop(convX);
        const Block xDb = r.take((s.dtRank + 2 * s.state) * t); // ssm_x: dt, B, C
        const Block dtRows = r.take(s.dtRank * t);              // cont(dt)
        const Block dt = r.take(di * t);                        // ssm_dt, bias in place
        r.drop(dtRows);
        r.drop(dt, xDb); // dt, B and C have gone to the host for the scan
        if (block == 0) {
            stateCopyIds = r.alloc.allocate(4 * r.seqs);
        }
        const Block states = r.take(s.state * di * r.seqs); // the scan's copies back: final states
        const Block y = r.take(di * t);                     // ... and y
        if (last) {
            r.alloc.allocate(4 * rows); // out_ids
        }
        const Block gathered = r.take(s.state * di * (r.seqs - 1)); // build_rs: the other slots' rows
        if (last) {
            r.alloc.release(stateCopyIds);
            r.take(s.embd * rows); // the residual's output rows; the residual dies
            r.drop(residual);
        }
        r.drop(gathered);
        const Block z = r.take(di * t); // cont(z)
        r.drop(xz);
        r.drop(x); // x * D in place, then added into y in place
        if (!last) {
            convRows = r.take((s.convKernel - 1) * di * r.seqs); // the next block's conv states
        }
        const Block gated = r.take(di * t); // swiglu(z, y)
        r.drop(z, y, states);
        const Block out = r.take(s.embd * t); // ssm_out
        r.drop(gated);
        r.drop(out); // added into the residual in place
    }
    return r.alloc.peakBytes();
}

std::optional<MambaTwoStack> mambaTwoStack(const ModelInfo& model, const KvPlan& kv, bool flashAttention,
                                           bool kqRefused) {
    const std::string& arch = model.architecture;
    const RecurrentBlockShape ssm = recurrentBlockShape(model);
    if ((arch != "mamba2" && arch != "granitehybrid" && arch != "nemotron_h") ||
        ssm.kind != RecurrentBlockKind::Mamba2) {
        return std::nullopt;
    }
    MambaTwoStack stack;
    stack.ssm = ssm;
    stack.feedForwardAfterEach = arch == "granitehybrid";
    stack.scaledInput = arch == "granitehybrid";
    const std::uint32_t blocks = model.blockCount - model.nextnLayerCount;
    for (std::uint32_t il = 0; il < blocks && il < model.layers.size(); ++il) {
        const LayerInfo& layer = model.layers[il];
        if (layer.recurrent) {
            stack.layers.push_back(MambaTwoStack::Layer::Mamba);
        } else if (layer.hasKv) {
            stack.layers.push_back(MambaTwoStack::Layer::Attention);
            stack.queryValues = std::uint64_t{layer.headCount} * layer.keyHeadDim;
            stack.keyValues = std::uint64_t{layer.headCountKv} * layer.keyHeadDim;
            stack.valueRow = std::uint64_t{layer.headCountKv} * layer.valueHeadDim;
        } else {
            stack.layers.push_back(MambaTwoStack::Layer::FeedForward);
        }
        stack.feedForward = std::max<std::uint64_t>(stack.feedForward, layer.feedForwardLength);
    }
    const bool attention = stack.queryValues > 0;
    stack.kqOnCpu = attention && !flashAttention && kqRefused;
    if (stack.layers.empty() || (attention && ((!flashAttention && !kqRefused) || kv.caches.size() != 1))) {
        return std::nullopt;
    }
    stack.maskCells = attention ? kv.caches.front().cells : 0;
    return stack;
}

std::uint64_t mambaTwoStackDeviceBytes(const MambaTwoStack& stack, std::uint32_t ubatchTokens,
                                       std::uint32_t sequences, std::uint32_t outputs) {
    const RecurrentBlockShape& s = stack.ssm;
    if (s.kind != RecurrentBlockKind::Mamba2 || stack.layers.empty() || ubatchTokens == 0) {
        return 0;
    }
    using Block = AllocatorReplay::Block;
    using Layer = MambaTwoStack::Layer;
    RecurrentReplay r = RecurrentReplay::reserving(ubatchTokens, sequences);
    const std::uint64_t t = r.tokens;
    const std::uint64_t di = s.inner;
    const std::uint64_t conv = di + 2 * s.groups * s.state;
    const std::uint64_t convStates = (s.convKernel - 1) * conv;
    const std::uint64_t ssmState = s.state * di;
    const std::size_t blocks = stack.layers.size();
    // Whether layer b takes the conv rows of the next Mamba-2 block: the first layer after it that
    // is not a plain FFN is one.
    const auto takesNextRows = [&](std::size_t b) {
        for (std::size_t next = b + 1; next < blocks; ++next) {
            if (stack.layers[next] != Layer::FeedForward) {
                return stack.layers[next] == Layer::Mamba;
            }
        }
        return false;
    };

    // The graph start: the mixed path's rows and slot ids, the state-copy ids and two views of
    // them, the token embeddings (the residual), the attention inputs (K and V row indices, the
    // f16 mask), the output ids, the DUP.
    // The state-copy ids: the conv rows' get_rows read them, the two views the state rows'; each
    // dies after its last reader, which frees a few bytes between larger blocks.
    Block stateCopyIds{};
    std::array<Block, 2> stateCopyViews{};
    const DeviceGraphStart start = replayDeviceGraphStart(
        r, s.embd,
        [&] {
            if (!stack.scaledInput) {
                stateCopyIds = r.alloc.allocate(4 * r.seqs);
            }
        },
        [&] {
            if (stack.scaledInput) {
                stateCopyIds = r.alloc.allocate(4 * r.seqs);
            }
            stateCopyViews = {r.alloc.allocate(4 * r.seqs), r.alloc.allocate(4 * r.seqs)};
            if (stack.maskCells > 0 && stack.kqOnCpu) {
                r.alloc.allocate(8 * r.tokens); // K and V row indices; no mask
                r.alloc.allocate(8 * r.tokens * stack.valueRow);
            } else if (stack.maskCells > 0) {
                replayCacheInputs(r, stack.maskCells, stack.keyValues, true);
            }
            r.alloc.allocate(4 * std::uint64_t{outputs});
        });
    if (stack.scaledInput) {
        r.drop(start.mixedRows); // the scale (in place on the embeddings) read them last
        r.alloc.release(start.slots);
    }
    Block residual = start.residual;

    const auto feedForward = [&] {
        const Block norm = r.take(s.embd * t);
        Block out;
        if (stack.feedForwardAfterEach) {
            out = replayGatedFeedForward(r, s.embd, stack.feedForward, norm);
        } else { // up, relu and square in place, down
            const Block up = r.take(stack.feedForward * t);
            r.drop(norm);
            out = r.take(s.embd * t);
            r.drop(up);
        }
        r.drop(residual); // the residual add in place into the output
        residual = out;
    };

    const auto lastMamba =
        static_cast<std::size_t>(std::find(stack.layers.rbegin(), stack.layers.rend(), Layer::Mamba).base() -
                                 stack.layers.begin() - 1);
    // The conv rows of the next Mamba-2 block; taking the last block's frees the state-copy ids.
    const auto takeNextRows = [&](std::size_t b) {
        const Block rows = r.take(convStates * r.seqs);
        if (std::find(stack.layers.begin() + static_cast<std::ptrdiff_t>(b) + 1, stack.layers.end(),
                      Layer::Mamba) == stack.layers.begin() + static_cast<std::ptrdiff_t>(lastMamba)) {
            r.alloc.release(stateCopyIds);
        }
        return rows;
    };
    Block convRows{};
    bool convRowsTaken = false;
    bool firstMamba = true;
    for (std::size_t b = 0; b < blocks; ++b) {
        const bool last = b + 1 == blocks;
        const Layer layer = stack.layers[b];
        if (layer == Layer::FeedForward) {
            if (last) {
                break; // the output rows only
            }
            feedForward();
            continue;
        }
        const Block norm = r.take(s.embd * t);
        if (b == 0 && !stack.scaledInput) {
            r.drop(start.mixedRows);
            r.alloc.release(start.slots);
        }
        if (layer == Layer::Attention) {
            // No RoPE in these builders; flash attention; the output projection.
            const Block q = r.take(stack.queryValues * t);
            const Block v = r.take(stack.keyValues * t);
            const Block k = r.take(stack.keyValues * t);
            r.drop(norm);
            r.drop(k, v); // stored into the cache
            Block attended{};
            if (stack.kqOnCpu) {
                r.drop(q); // to the CPU, whose permuted result comes back and is made contiguous
                const Block copied = r.take(stack.queryValues * t);
                attended = r.take(stack.queryValues * t);
                r.drop(copied);
            } else {
                attended = r.take(stack.queryValues * t);
                r.drop(q);
            }
            if (takesNextRows(b)) {
                convRows = takeNextRows(b);
                convRowsTaken = true;
            }
            const Block projected = r.take(s.embd * t);
            r.drop(attended);
            if (last) {
                break;
            }
            r.drop(residual); // the residual add in place into the projection
            residual = projected;
        } else {
            const bool first = firstMamba;
            firstMamba = false;
            if (first && stack.scaledInput && !convRowsTaken) {
                convRows = r.take(convStates * r.seqs);
                convRowsTaken = true;
            }
            const Block zxBCdt = r.take((2 * di + 2 * s.groups * s.state + s.heads) * t); // ssm_in
            r.drop(norm);
            if (!convRowsTaken) {
                convRows = r.take(convStates * r.seqs);
            }
            const Block convX = r.take(conv * (t / r.seqs + s.convKernel - 1) * r.seqs);
            r.drop(convRows);
            convRowsTaken = false;
            Block dt;
            Block gathered; // build_rs: the other slots' states
            Block xBC;      // ssm_conv; bias add and silu in place
            const bool lastOfStack = b == lastMamba && !last && b > 0;
            if (first) {
                xBC = r.take(conv * t);
                r.drop(convX);
                gathered = r.take(ssmState * (r.seqs - 1));
                dt = r.take(s.heads * t);
            } else {
                dt = r.take(s.heads * t);
                gathered = r.take(ssmState * (r.seqs - 1));
                if (lastOfStack) {
                    r.alloc.release(stateCopyViews[0]);
                }
                xBC = r.take(conv * t);
                r.drop(convX);
            }
            const Block y = r.take(di * t + ssmState * r.seqs); // ssm_scan: y and the final states
            r.drop(dt);
            if (lastOfStack) {
                // The last Mamba-2 block of a hybrid: its state rows and y live a little longer.
                r.alloc.release(stateCopyViews[1]);
                const Block z = r.take(di * t);
                r.drop(zxBCdt);
                const Block yD = r.take(di * t);
                r.drop(xBC, gathered);
                const Block gated = r.take(di * t);
                r.drop(z, yD, y);
                const Block normed = r.take(di * t);
                r.drop(gated);
                const Block out = r.take(s.embd * t);
                r.drop(normed, residual);
                residual = out;
            } else {
                const bool nextRows = takesNextRows(b);
                if (first && nextRows) {
                    convRows = takeNextRows(b);
                }
                r.drop(gathered);
                if (!first && nextRows) {
                    convRows = takeNextRows(b);
                }
                convRowsTaken = nextRows;
                residual = replayMamba2Output(r, s, zxBCdt, xBC, y, residual);
            }
        }
        if (stack.feedForwardAfterEach && !last) {
            feedForward();
        }
    }
    return r.alloc.peakBytes();
}

} // namespace llamafit
