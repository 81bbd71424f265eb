#pragma once
// ComputePlanCache: the sizing engine's answers (computeengine.h) compiled once per structure and
// read off as the context changes, which is what a slider and the sweep chart ask for.
//
// A structure is every input of the engine but the KV cache's cells (ComputePlanQuery). For one,
// computeplancompiler.h compiles a CompiledPlan: each reserve's graph, split by the scheduler, with
// every tensor's size and shape as affine functions of the cells (allocator/cellsteps.h), over
// the range where the graph splits as at the anchor; it says how that range is checked. Cells in
// that range need no graph: ggml-alloc lays the plan out at them (a fraction of a millisecond),
// and that layout's bytes, affine too, hold wherever its choices do, so most cells after the
// first few are read off a layout with a multiplication.
//
// The cache is memoization, not state an answer depends on: an estimate from a plan equals the
// engine's own at those cells (tests/unit/sizing/computeplancache_test.cpp holds it to that). It
// is shared by the copies of one prepared model (sizingmodel.h) and locked for the GUI's sweep
// thread; it keeps the structures used last.

#include "core/common/result.h"
#include "core/model/loraadapter.h"
#include "core/sizing/allocator/cellsteps.h"
#include "core/sizing/allocator/graphallocator.h"
#include "core/sizing/layerplacement.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

namespace llamafit {

// One estimate's engine inputs, by reference: what the cache is asked with. A structure is these
// less the cells and what follows from them alone: the context tokens, n_ctx, n_ctx_seq, and the
// non-SWA cache's cells and bytes. The SWA cache's cells stay, as they follow the context only
// below the window.
struct ComputePlanQuery {
    enum class Kind { ComputeBuffers, FlashAttentionProbe };
    Kind kind = Kind::ComputeBuffers;
    const ServerSettings& settings;
    const ResolvedContext& context;
    const std::vector<KvCacheEstimate>& caches;
    const std::vector<GpuDevice>& gpus;
    const LayerPlacement& layers;
    const std::vector<LoraAdapterInfo>& adapters;
};

// The non-SWA cache's cells per stream, the plan's variable; 0 where there is no such cache.
std::uint32_t planCells(const std::vector<KvCacheEstimate>& caches);

// One structure compiled at an anchor's cells: each reserve's scheduled graph as it grows with the
// cache, over the range where the graph and its split stay as at the anchor (for the -fa auto
// probe, its answer there). computeplancompiler.h compiles it.
struct CompiledPlan {
    std::uint32_t anchorCells = 0;
    allocator::StepRange valid; // steps of 256 cells from the anchor
    // The engine has no answer here (ggml would abort, or a graph could not be built), and why.
    bool covered = true;
    std::optional<Error> refusal;
    bool keepsFlashAttention = true;                // a FlashAttentionProbe plan's answer
    std::vector<scheduler::BufferType> bufferTypes; // per scheduler backend: the GPUs, then the CPU
    std::vector<allocator::GrowingPlan> reserves;

    bool holds(std::uint32_t cells) const;
};

// What a plan answers at some cells: each scheduler backend's compute buffer (the largest any
// reserve needs), or the probe's answer.
struct PlannedCompute {
    bool covered = true;
    std::optional<Error> refusal; // why not, where not covered
    bool keepsFlashAttention = true;
    std::vector<std::uint64_t> bytes;
};

class ComputePlanCache {
  public:
    // From a plan of `key` that holds at `cells`, laying its reserves out there anew (ggml-alloc
    // over the plan's sizes at those cells, no graph built) where no earlier layout's choices
    // hold; nullopt where no plan of `key` holds.
    std::optional<PlannedCompute> find(const ComputePlanQuery& query, std::uint32_t cells);
    void add(const ComputePlanQuery& query, std::shared_ptr<const CompiledPlan> plan);

  private:
    // ggml-alloc's layout of every reserve at `atStep` from the plan's anchor, and the steps
    // (from `atStep`) where its choices hold.
    struct Layout {
        std::int64_t atStep = 0;
        allocator::StepRange choices;
        std::vector<std::vector<allocator::AffineBytes>> reserveBytes;
    };
    struct Entry {
        std::shared_ptr<const CompiledPlan> plan;
        std::vector<Layout> layouts;
    };
    // A query's values, kept: its cells are whatever was compared last (sameStructure).
    struct StructureKey {
        ComputePlanQuery::Kind kind;
        ServerSettings settings;
        ResolvedContext context;
        std::vector<KvCacheEstimate> caches;
        std::vector<GpuDevice> gpus;
        LayerPlacement layers;
        std::vector<LoraAdapterInfo> adapters;
    };
    struct Structure {
        StructureKey key;
        std::vector<Entry> entries;
    };
    static constexpr std::size_t kStructures = 12;
    static constexpr std::size_t kEntriesPerStructure = 8;
    static constexpr std::size_t kLayoutsPerEntry = 64;

    static bool sameStructure(StructureKey& known, const ComputePlanQuery& query);
    std::list<Structure>::iterator findStructure(const ComputePlanQuery& query);
    static Layout layOut(const CompiledPlan& plan, std::int64_t step);
    static std::vector<std::uint64_t> bytesAt(const Layout& layout, std::int64_t step);

    std::mutex m_mutex;
    std::list<Structure> m_structures; // the one used last first
};

} // namespace llamafit
