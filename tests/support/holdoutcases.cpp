#include "tests/support/holdoutcases.h"

#include "core/common/units.h"
#include "core/model/modelinterpreter.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"
#include "tests/support/modelfiles.h"
#include "tests/support/seededdraw.h"
#include "tests/support/shapegeometry.h"
#include "tests/support/vulkancases.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace llamafit::test {
namespace {

// Cases per round and backend: about 3 s a CPU case, 4 s a Vulkan one and 7 s an RPC one on two
// cores. Round 1 (the twelve architectures the holdout began with) records in about 20 minutes,
// round 2 (eight builders written after it) in 5, round 3 (the other shapes with a builder) in
// about 10, rounds 4 (command-r) and 5 (gemma) in one each, rounds 6 (qwen3vl and qwen3vlmoe) and
// 7 (ernie4_5 and ernie4_5-moe) in two each, rounds 8 (minimax-m2), 9 (olmoe), 10 (hunyuan-moe),
// 11 (dots1) and 12 (internlm2) in one each. A round's cases follow the ones before it, so a new
// round leaves the recorded cases as they were.
constexpr HoldoutRound kHoldoutRounds[] = {
    {1, 150, 100, 50}, {2, 48, 32, 16}, {3, 55, 33, 22}, {4, 4, 3, 2},  {5, 4, 3, 2},  {6, 8, 6, 4},
    {7, 8, 6, 4},      {8, 4, 3, 2},    {9, 4, 3, 2},    {10, 4, 3, 2}, {11, 4, 3, 2}, {12, 4, 3, 2}};

// What the recording machine affords (see the header).
constexpr std::uint64_t kVulkanDeviceBudget = 1843 * kMiB; // 1.8 GiB of lavapipe's 2 GiB
constexpr std::uint64_t kCacheBudget = 3 * kGiB;           // KV + RS, all devices
constexpr std::uint64_t kRpcWeightBudget = 1536 * kMiB;    // per ggml-rpc-server
// The free memory the estimate assumes for each RPC server when drawing (the recordings list
// about 24 GiB); the recorded test uses what the log lists.
constexpr std::uint64_t kRpcAssumedFreeBytes = 20 * kGiB;
constexpr int kMaxDraws = 200;

bool hasParameter(const GeometryTable& table, const std::string& name) {
    return table.shapeParameters.count(name) != 0;
}

// The K/V cache types llama-server 0.7.0 takes for -ctk/-ctv (common/arg.cpp kv_cache_types).
const std::vector<GgmlType>& cacheTypes() {
    using T = GgmlType;
    static const std::vector<GgmlType> types{T::F32,  T::F16,    T::BF16, T::Q8_0, T::Q4_0,
                                             T::Q4_1, T::IQ4_NL, T::Q5_0, T::Q5_1};
    return types;
}

ServerSettings drawSettings(SeededDraw& draw, HoldoutBackend backend, const GeometryTable& table, bool swa,
                            bool mla, std::uint32_t blocks) {
    using T = GgmlType;
    ServerSettings s;
    s.repack = false; // the CPU matrix's reason: repacking copies the weights into real memory
    s.contextTokens =
        draw.pick(std::vector<std::uint32_t>{1024, 2048, 3000, 4096, 6144, 8192, 12288, 16384, 32768});
    if (draw.chance(80)) {
        s.parallelSlots = draw.between(1, 8);
        if (draw.chance(25)) {
            s.kvUnified = draw.chance(50);
        }
    }
    s.flashAttention =
        draw.pick(std::vector<FlashAttention>{FlashAttention::Auto, FlashAttention::On, FlashAttention::Off});
    s.cacheTypeK = draw.pick(cacheTypes());
    // A quantized V without flash attention is refused (llama.cpp src/llama-context.cpp): a few
    // such cases check that the estimate refuses too, most draw an unquantized V.
    s.cacheTypeV = s.flashAttention == FlashAttention::Off && draw.chance(85)
                       ? draw.pick(std::vector<GgmlType>{T::F16, T::BF16, T::F32})
                       : draw.pick(cacheTypes());
    // An MLA cache holds one row type, so llama.cpp refuses a V type other than K's: a few cases
    // check that the estimate refuses too, most draw V = K.
    if (mla && draw.chance(85)) {
        s.cacheTypeV = s.cacheTypeK;
    }
    s.ubatchTokens = draw.pick(std::vector<std::uint32_t>{32, 48, 64, 100, 128, 192, 256, 384, 512, 640, 768,
                                                          1000, 1024, 1536, 2048, 3072, 4096});
    s.batchTokens =
        draw.chance(50) ? std::max<std::uint32_t>(s.ubatchTokens, 2048) : s.ubatchTokens * draw.between(1, 3);
    s.swaFull = swa && draw.chance(30);
    if (backend == HoldoutBackend::Cpu) {
        return s;
    }
    const std::uint32_t layer = draw.between(0, 99);
    s.gpuLayers = layer < 55                                     ? GpuLayers::all()
                  : layer < 85 || backend == HoldoutBackend::Rpc ? GpuLayers::count(draw.between(1, blocks))
                                                                 : GpuLayers::count(0);
    s.kvOffload = !draw.chance(15);
    if (hasParameter(table, "experts")) {
        const std::uint32_t moe = draw.between(0, 99);
        if (moe < 15) {
            s.cpuMoe = true;
        } else if (moe < 30) {
            s.cpuMoeLayers = draw.between(1, blocks);
        } else if (moe < 40) {
            s.tensorOverrides = {{"ffn_up_exps", "CPU"}};
        }
    }
    if (backend == HoldoutBackend::Rpc) {
        const std::size_t servers = draw.chance(85) ? 2 : 1;
        s.rpcServers.assign(recordedRpcEndpoints().begin(),
                            recordedRpcEndpoints().begin() + static_cast<long>(servers));
        if (servers == 2 && draw.chance(60)) {
            s.tensorSplit =
                draw.pick(std::vector<std::vector<double>>{{1, 1}, {3, 1}, {1, 3}, {2, 1}, {0, 1}});
        }
    }
    return s;
}

std::vector<GpuDevice> devicesFor(HoldoutBackend backend, const ServerSettings& settings) {
    if (backend == HoldoutBackend::Vulkan) {
        return {lavapipeDevice()};
    }
    std::vector<GpuDevice> devices;
    for (const std::string& endpoint : settings.rpcServers) {
        devices.push_back(rpcDevice(endpoint, kRpcAssumedFreeBytes));
    }
    return devices;
}

// Whether the run stays within the recording machine's means (the header's budget). An estimate
// that refuses the settings allocates nothing: the server must refuse too, a data point.
bool affordable(const ModelSpec& spec, HoldoutBackend backend, const ServerSettings& settings) {
    const auto model = interpretModel(spec.file);
    if (!model) {
        return false;
    }
    const auto estimate = estimateMemory(*model, settings, devicesFor(backend, settings));
    if (!estimate) {
        // The server refuses only after it has loaded the weights, and over RPC that means sending
        // them: at most what the servers' weight budgets would hold, however they are split.
        return backend != HoldoutBackend::Rpc ||
               spec.file.tensorBytes() <= settings.rpcServers.size() * kRpcWeightBudget;
    }
    std::uint64_t caches = 0;
    for (const DeviceEstimate& device : estimate->devices) {
        caches += device.bytes.kvBytes + device.bytes.rsBytes;
        if (device.host) {
            continue;
        }
        // Weights, caches and outputs only: the compute buffer is what the holdout measures, and a
        // draw that depended on its estimate would change whenever a compute rule does.
        const std::uint64_t heldBytes =
            device.bytes.modelBytes + device.bytes.kvBytes + device.bytes.rsBytes + device.bytes.outputBytes;
        if (backend == HoldoutBackend::Vulkan && heldBytes > kVulkanDeviceBudget) {
            return false;
        }
        if (backend == HoldoutBackend::Rpc && device.bytes.modelBytes > kRpcWeightBudget) {
            return false;
        }
    }
    return caches <= kCacheBudget;
}

HoldoutCase drawCase(std::uint32_t index, HoldoutBackend backend, std::uint32_t position,
                     const std::vector<GeometryTable>& tables) {
    const GeometryTable& table = tables[position % tables.size()];
    SeededDraw draw(kHoldoutSeed + index);
    const auto base = loadShape(table.shapeStem);
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "h%03u_", index);

    HoldoutCase result;
    result.index = index;
    result.backend = backend;
    IntegrationShape& shape = result.matrixCase.shape;
    shape.name = prefix + testNamePart(table.architecture);
    shape.specPath = (std::filesystem::path(shapesDirectory()) / (table.shapeStem + ".json")).string();
    result.matrixCase.settingsName = holdoutBackendName(backend);
    for (int attempt = 0; attempt < kMaxDraws; ++attempt) {
        const ShapeGeometry& geometry = draw.pick(table.geometries);
        const std::uint32_t blocks = draw.between(table.minBlocks, mostCutBlocks(table, geometry, base));
        auto spec = base ? reshapeSpec(*base, table, geometry) : Result<ModelSpec>(base.error());
        if (spec) {
            spec = cutShape(*spec, {blocks, std::nullopt});
        }
        const std::string architecture =
            spec ? spec->file.getString("general.architecture").value_or("") : "";
        const bool swa =
            spec && spec->file.getUint(architecture + ".attention.sliding_window").value_or(0) > 0;
        const bool mla =
            spec && spec->file.getUint(architecture + ".attention.key_length_mla").value_or(0) > 0;
        ServerSettings settings = drawSettings(draw, backend, table, swa, mla, blocks);
        // The last draw is kept whatever it costs, so that a generator that cannot fit shows as
        // a failing run rather than a missing case.
        if (spec && !affordable(*spec, backend, settings) && attempt + 1 < kMaxDraws) {
            continue;
        }
        result.geometry = table.architecture + "/" + geometry.name;
        shape.geometry = result.geometry;
        shape.cut = {blocks, std::nullopt};
        shape.architecture = architecture;
        shape.swa = swa;
        shape.smallWeights = spec && spec->file.tensorBytes() < 3 * kGiB;
        result.matrixCase.settings = std::move(settings);
        if (backend == HoldoutBackend::Vulkan) {
            result.matrixCase.gpus = {lavapipeDevice()};
        }
        break;
    }
    return result;
}

} // namespace

std::string holdoutBackendName(HoldoutBackend backend) {
    switch (backend) {
    case HoldoutBackend::Cpu:
        return "cpu";
    case HoldoutBackend::Vulkan:
        return "vulkan";
    case HoldoutBackend::Rpc:
        return "rpc";
    }
    return "?";
}

const std::vector<HoldoutCase>& holdoutCases() {
    static const std::vector<HoldoutCase> cases = [] {
        std::vector<HoldoutCase> drawn;
        const auto& tables = geometryTables();
        if (!tables) {
            return drawn; // the recorded test's table check names the error
        }
        constexpr HoldoutBackend kBackends[] = {HoldoutBackend::Cpu, HoldoutBackend::Vulkan,
                                                HoldoutBackend::Rpc};
        forEachHoldoutCase(kHoldoutRounds, *tables,
                           [&](std::uint32_t index, std::size_t backend, std::uint32_t position,
                               const std::vector<GeometryTable>& roundTables) {
                               drawn.push_back(drawCase(index, kBackends[backend], position, roundTables));
                           });
        return drawn;
    }();
    return cases;
}

std::vector<IntegrationCase> holdoutIntegrationCases(HoldoutBackend backend) {
    std::vector<IntegrationCase> cases;
    for (const HoldoutCase& holdout : holdoutCases()) {
        if (holdout.backend == backend) {
            cases.push_back(holdout.matrixCase);
        }
    }
    return cases;
}

std::vector<RpcCase> holdoutRpcCases() {
    std::vector<RpcCase> cases;
    for (const HoldoutCase& holdout : holdoutCases()) {
        if (holdout.backend == HoldoutBackend::Rpc) {
            cases.push_back({holdout.matrixCase.shape, holdout.matrixCase.settingsName,
                             holdout.matrixCase.settings, false});
        }
    }
    return cases;
}

} // namespace llamafit::test
