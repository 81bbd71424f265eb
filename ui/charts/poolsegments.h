#pragma once
// PoolSegments: one memory pool of a PoolUsage cut into the stacked segments the memory chart
// draws, bottom to top -- the pool's reservation (OS, desktop), llama-server's buffers per
// component (kChartComponentOrder), the buffers of the MTP draft context and the LoRA adapters
// (kChartOwnerOrder), other llama-server memory with no component (the mmap page
// cache, GPU buffers counted again in the system RAM they share), and run-time growth (prompt
// cache, context checkpoints: the "up to" terms) -- each with the text its hover tooltip shows:
// the exact MiB and the llama.cpp rule behind the number (DeviceEstimate::buffers rules for a
// component, PoolTerm rules for the rest). Used by MemoryChart and its tests.
// Pure shaping of the core's answers: no widgets. Thread: GUI (translated text). Units: bytes.

#include "core/machine/memorypools.h"
#include "core/machine/poolusage.h"
#include "core/sizing/memoryestimate.h"

#include <QString>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace llamafit {

// The buffers of another llama.cpp object than the main model and context, drawn as their own
// segments above the components they would otherwise join (BufferOwner): the MTP draft context
// of --spec-type draft-mtp (its KV, output and compute buffers) and the LoRA adapters' weights.
inline constexpr std::size_t kChartOwnerCount = 4;
inline constexpr std::array<BufferOwner, kChartOwnerCount> kChartOwnerOrder{
    BufferOwner::MtpDraft, BufferOwner::DraftModel, BufferOwner::Projector, BufferOwner::LoraAdapter};

struct PoolSegments {
    std::size_t poolIndex = 0; // in Machine::pools and PoolUsage::pools
    QString name;
    PoolKind kind = PoolKind::HostRam;
    std::uint64_t capacityBytes = 0;
    bool capacityKnown = true;
    FitVerdict verdict = FitVerdict::Fits;
    std::int64_t headroomBytes = 0; // capacity - at load (negative: over)

    std::uint64_t reservationBytes = 0;
    std::array<std::uint64_t, 6> componentBytes{}; // indexed like kChartComponentOrder
    std::array<std::uint64_t, kChartOwnerCount>
        ownerBytes{}; // indexed like kChartOwnerOrder, not in componentBytes
    std::array<std::uint64_t, kChartOwnerCount>
        ownerWeightBytes{};        // their model component, within ownerBytes
    std::uint64_t otherBytes = 0;  // at load, no component
    std::uint64_t growthBytes = 0; // upTo terms' bounds
    bool growthUnbounded = false;

    QString reservationToolTip;
    std::array<QString, 6> componentToolTips;
    std::array<QString, kChartOwnerCount> ownerToolTips;
    QString otherToolTip;
    QString growthToolTip;

    std::uint64_t componentAt(Component component) const;
    QString componentToolTip(Component component) const;
    std::uint64_t ownerAt(BufferOwner owner) const;
    QString ownerToolTip(BufferOwner owner) const;
    std::uint64_t atLoadBytes() const; // reservation + components + owners + other
    std::uint64_t topBytes() const;    // atLoadBytes() + growth
};

// Index of `component` in kChartComponentOrder, of `owner` in kChartOwnerOrder.
std::size_t chartComponentIndex(Component component);
std::size_t chartOwnerIndex(BufferOwner owner);
// "MTP draft context", "LoRA adapters" (translated).
QString bufferOwnerLabel(BufferOwner owner);

// Whether the chart draws the pool: every pool except an APU's shared/GTT window, which is
// system RAM seen through the GPU and drawn only when llama-server's buffers land there.
bool poolIsDrawn(const PoolLoad& load);

// The drawn pools of `usage`, in pool order, with their segments and tooltips.
std::vector<PoolSegments> poolSegments(const PoolUsage& usage, const MemoryEstimate& estimate);

// Adds `line` (decodeSpeedToolTipLine: the bound and the expected decode rate) to the tooltips of
// the segments each decoded token reads -- the weights, the KV cache and the recurrent state --
// where the pool holds any: those bytes are what the speed is the bandwidth divided by, so that
// is where the user asks "how fast does this make it?". The other segments are not read per
// token and keep their tooltips.
void appendDecodeSpeedLine(PoolSegments& pool, const QString& line);

// "fits · 3.2 GiB free", "does not fit · 1.4 GiB over", "size unknown": the text over a bar.
QString poolVerdictText(const PoolSegments& pool);

// The pool without its reservation, its weights (the LoRA adapters' too) and the other memory
// that follows them (their page cache, GPU buffers seen again in shared RAM): what the sliders
// move (KV, RS, compute, output, overhead, the MTP draft context, growth), to be drawn at its
// own scale. At 4096 tokens those
// are a few pixels of a 26 GiB bar.
PoolSegments withoutWeights(PoolSegments pool);

// "Vulkan0: weights 26.1 GiB · KV 80.0 MiB · RS 62.8 MiB · compute 493 MiB": each component
// llama-server allocates in the pool, readable without hovering (sizes under 1 GiB in MiB).
QString poolBreakdownText(const PoolSegments& pool);

} // namespace llamafit
