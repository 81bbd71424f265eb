#pragma once
// placeOnMachine(): puts every component of every device of a MemoryEstimate into the machine
// pool it really lands in -- a GPU's buffers in its pool (VRAM, an APU's carve-out, or the
// shared/GTT window, which also counts against system RAM), the host device's buffers and the
// host terms (hostterms.h) in system RAM next to the OS's own use -- and says per pool how much
// is used at load, how much it may grow to, the headroom, and whether it fits.
// Used by the BIOS split advisor, `llamafit-cli plan` and the GUI. Pure; bytes.
//
// Verdicts, with margin m (default 1024 MiB, llama.cpp's --fit-target, common/common.h):
//   Fits        at-load + m <= capacity, and the run-time bound + m <= capacity
//   Tight       fits at load, but within m, or run-time growth could reach the limit (or is unbounded)
//   DoesNotFit  at-load > capacity
//   Unknown     no source gave the pool's size: not checked (never guessed)

#include "core/machine/memorypools.h"
#include "core/model/modelinfo.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"
#include "core/sizing/sizerule.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class FitVerdict { Fits, Tight, DoesNotFit, Unknown };

// One term of a pool. What it is ("OS and other programs", "Vulkan0 model weights", "prompt
// cache (--cache-ram 8192)") is `rule` with `component` and `device`: the front ends word it.
struct PoolTerm {
    std::uint64_t bytes = 0; // at load, or the bound for upTo terms
    bool upTo = false;       // run-time growth, not there at load
    bool unbounded = false;
    bool reservation = false; // the pool's own reservation (OS, desktop), not llama-server's
    SizeRule rule;
    // The estimate's component for a device's own buffers (the memory chart colours by it);
    // nullopt for reservations, host-side growth and buffers counted again in a shared pool.
    std::optional<Component> component;
    std::string device; // the estimate's device name for device buffers ("CPU", "Vulkan0")
    bool operator==(const PoolTerm&) const = default;
};

struct PoolLoad {
    std::size_t poolIndex = 0;
    std::string poolName;
    PoolKind kind = PoolKind::HostRam;
    std::uint64_t capacityBytes = 0;
    bool capacityKnown = true;
    std::vector<PoolTerm> terms;         // reservation first, then llama-server's buffers, then growth
    std::uint64_t atLoadBytes = 0;       // reservation + everything there right after load
    std::uint64_t upToBytes = 0;         // atLoad + run-time growth bounds
    std::uint64_t llamaAtLoadBytes = 0;  // llama-server's own part of atLoad (no reservation)
    std::int64_t headroomBytes = 0;      // capacity - atLoad (negative: over)
    std::int64_t worstHeadroomBytes = 0; // capacity - upTo
    bool unbounded = false;
    FitVerdict verdict = FitVerdict::Fits;
    bool operator==(const PoolLoad&) const = default;
};

struct PlacementOptions {
    std::uint64_t marginBytes = 1024ULL * 1024 * 1024; // like llama.cpp's --fit-target 1024 MiB
    bool operator==(const PlacementOptions&) const = default;
};

struct PoolUsage {
    std::vector<PoolLoad> pools;           // in Machine::pools order
    FitVerdict verdict = FitVerdict::Fits; // worst over pools with a known size
    std::uint64_t marginBytes = 0;
    std::vector<std::string> notes;
    const PoolLoad* find(PoolKind kind) const;
    bool operator==(const PoolUsage&) const = default;
};

PoolUsage placeOnMachine(const MemoryEstimate& estimate, const ServerSettings& settings,
                         const ModelInfo& model, const Machine& machine,
                         const PlacementOptions& options = {});

// Several llama-server processes side by side on one machine (a model set in router mode, a
// llama-swap group): each pool's reservation once, then every usage's own terms in turn,
// totalled and judged by the same rules as one process. Each usage must come from
// placeOnMachine() on the same machine with the same margin; an empty list gives no pools.
PoolUsage stackPoolUsages(const std::vector<const PoolUsage*>& usages);

std::string_view fitVerdictName(FitVerdict verdict); // "fits", "tight", "does-not-fit", "unknown"

} // namespace llamafit
