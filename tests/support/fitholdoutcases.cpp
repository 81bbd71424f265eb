#include "tests/support/fitholdoutcases.h"
#include "core/common/units.h"

#include "tests/support/integrationcases.h"
#include "tests/support/modelfiles.h"
#include "tests/support/seededdraw.h"
#include "tests/support/shapegeometry.h"

#include <algorithm>
#include <cstdio>

namespace llamafit::test {
namespace {

// Cases per holdout round (shapegeometry.h) and rig: about a second a CPU or lavapipe case and three
// an RPC one (two servers started per case). A round's cases follow the ones before it.
constexpr HoldoutRound kFitHoldoutRounds[] = {
    {1, 40, 30, 20}, {2, 16, 16, 8}, {3, 11, 11, 11}, {4, 2, 2, 1},  {5, 2, 2, 1},  {6, 4, 4, 2},
    {7, 4, 4, 2},    {8, 2, 2, 1},   {9, 2, 2, 1},    {10, 2, 2, 1}, {11, 2, 2, 1}, {12, 2, 2, 1}};

// The recording machine has 24 GiB: what a CPU or RPC case leaves for fit stays under it.
constexpr std::uint32_t kMostLeaveMiB = 20000;

std::string rigName(FitRig rig) {
    switch (rig) {
    case FitRig::Cpu:
        return "cpu";
    case FitRig::Vulkan:
        return "vk";
    case FitRig::Rpc:
        return "rpc";
    }
    return "?";
}

// The flags every rig draws: context, slots, ubatch, flash attention, cache types, -fitc.
std::vector<std::string> drawCommonFlags(SeededDraw& draw, FitRig rig, bool swa) {
    std::vector<std::string> args;
    const std::uint32_t context = draw.between(0, 99);
    // With -c unset llama-fit-params 0.7.0 aborts on lavapipe for many files (such runs are
    // reported as skipped): lavapipe's cases set -c more often.
    const std::uint32_t unset = rig == FitRig::Vulkan ? 30 : 50;
    if (context >= unset && context < unset + 15) {
        args.insert(args.end(), {"-c", "0"});
    } else if (context >= unset + 15) {
        args.insert(
            args.end(),
            {"-c", std::to_string(draw.pick(std::vector<std::uint32_t>{4096, 8192, 16384, 32768, 65536}))});
    }
    if (draw.chance(50)) {
        args.insert(args.end(), {"-np", std::to_string(draw.between(1, 4))});
    }
    if (draw.chance(40)) {
        args.insert(
            args.end(),
            {"-ub", std::to_string(draw.pick(std::vector<std::uint32_t>{64, 128, 256, 512, 1024, 2048}))});
    }
    const std::string flash = draw.pick(std::vector<std::string>{"", "on", "off"});
    if (!flash.empty()) {
        args.insert(args.end(), {"-fa", flash});
    }
    if (draw.chance(40)) {
        args.insert(args.end(), {"-ctk", draw.pick(std::vector<std::string>{"q8_0", "q4_0", "q5_1", "f16"})});
        // A quantized V needs flash attention (llama-context.cpp): drawn only with -fa on.
        if (flash == "on" && draw.chance(70)) {
            args.insert(args.end(), {"-ctv", draw.pick(std::vector<std::string>{"q8_0", "q4_0", "f16"})});
        }
    }
    if (draw.chance(20)) {
        args.insert(args.end(),
                    {"-fitc", std::to_string(draw.pick(std::vector<std::uint32_t>{1024, 4096, 16384}))});
    }
    if (swa && draw.chance(15)) {
        args.push_back("--swa-full");
    }
    return args;
}

FitCase drawCase(std::uint32_t index, FitRig rig, std::uint32_t position,
                 const std::vector<GeometryTable>& tables) {
    const GeometryTable& table = tables[position % tables.size()];
    SeededDraw draw(kFitHoldoutSeed + index);
    char prefix[16];
    std::snprintf(prefix, sizeof prefix, "f%03u_", index);

    FitCase fitCase;
    fitCase.name = prefix + testNamePart(table.architecture) + "_" + rigName(rig);
    fitCase.shape = table.shapeStem;
    fitCase.rig = rig;
    const ShapeGeometry& geometry = draw.pick(table.geometries);
    fitCase.geometry = table.architecture + "/" + geometry.name;
    fitCase.blocks =
        draw.between(table.minBlocks, mostCutBlocks(table, geometry, loadShape(table.shapeStem)));
    const Result<ModelSpec> spec = fitCaseSpec(fitCase);
    const std::string architecture = spec ? spec->file.getString("general.architecture").value_or("") : "";
    const bool swa = spec && spec->file.getUint(architecture + ".attention.sliding_window").value_or(0) > 0;
    const std::uint64_t weightsMiB = spec ? spec->file.tensorBytes() / kMiB : 0;

    fitCase.args = drawCommonFlags(draw, rig, swa);
    if (rig == FitRig::Vulkan) {
        if (draw.chance(50)) {
            fitCase.args.insert(
                fitCase.args.end(),
                {"-fitt", std::to_string(draw.pick(std::vector<std::uint32_t>{256, 512, 1024, 1536}))});
        }
        const std::uint32_t placement = draw.between(0, 99);
        if (placement < 10) {
            fitCase.args.push_back("-nkvo");
        } else if (placement < 20 && table.shapeParameters.count("experts") != 0) {
            fitCase.args.push_back("--cpu-moe");
        } else if (placement < 28) {
            fitCase.args.insert(fitCase.args.end(),
                                {"-ngl", std::to_string(draw.between(0, fitCase.blocks))});
        }
        return fitCase;
    }
    // The room fit may use, per device: a multiple of the weights (one server holds about half of
    // them), from too little to ample.
    const std::uint32_t percent = rig == FitRig::Cpu
                                      ? draw.pick(std::vector<std::uint32_t>{70, 90, 100, 110, 130, 160, 200})
                                      : draw.pick(std::vector<std::uint32_t>{35, 50, 60, 80, 100, 130});
    const std::uint64_t leave = weightsMiB * percent / 100 + draw.between(256, 4096);
    fitCase.leaveMiB = static_cast<std::uint32_t>(std::min<std::uint64_t>(leave, kMostLeaveMiB));
    if (rig == FitRig::Rpc) {
        fitCase.args.insert(fitCase.args.begin(),
                            {"--rpc", rpcFitEndpoints()[0] + "," + rpcFitEndpoints()[1]});
    }
    return fitCase;
}

} // namespace

const std::vector<FitCase>& fitHoldoutCases() {
    static const std::vector<FitCase> cases = [] {
        std::vector<FitCase> drawn;
        const auto& tables = geometryTables();
        if (!tables) {
            return drawn; // the recorded holdout's table check names the error
        }
        constexpr FitRig kRigs[] = {FitRig::Cpu, FitRig::Vulkan, FitRig::Rpc};
        forEachHoldoutCase(kFitHoldoutRounds, *tables,
                           [&](std::uint32_t index, std::size_t rig, std::uint32_t position,
                               const std::vector<GeometryTable>& roundTables) {
                               drawn.push_back(drawCase(index, kRigs[rig], position, roundTables));
                           });
        return drawn;
    }();
    return cases;
}

} // namespace llamafit::test
