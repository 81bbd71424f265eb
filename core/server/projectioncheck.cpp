// compareProjections() and buildTag(); see projectioncheck.h.

#include "core/server/projectioncheck.h"

#include "core/flags/serverargs.h"
#include "core/sizing/fitreplica.h"

#include <cmath>
#include <cstdlib>
#include <sstream>

namespace llamafit {

namespace {

ProjectionCheckRow checkRow(std::string device, std::int64_t llamaCppMiB, std::uint64_t ourBytes) {
    ProjectionCheckRow row;
    row.device = std::move(device);
    row.llamaCppMiB = llamaCppMiB;
    row.llamaFitMiB = static_cast<std::int64_t>(ourBytes / (1024 * 1024));
    if (llamaCppMiB != 0) {
        row.differencePercent =
            100.0 * static_cast<double>(row.llamaFitMiB - llamaCppMiB) / static_cast<double>(llamaCppMiB);
    } else if (row.llamaFitMiB != 0) {
        row.differencePercent = 100.0;
    }
    row.differs = std::abs(row.differencePercent) > kProjectionTolerancePercent;
    return row;
}

} // namespace

std::vector<ProjectionCheckRow> compareProjections(const std::vector<MemoryBreakdownRow>& table,
                                                   const std::vector<std::uint64_t>& projectionBytes) {
    std::vector<ProjectionCheckRow> rows;
    const std::size_t gpus = projectionBytes.empty() ? 0 : projectionBytes.size() - 1;
    std::size_t gpu = 0;
    for (const MemoryBreakdownRow& row : table) {
        if (row.freeMiB) { // a device row: "Vulkan0 (llvmpipe ...)"
            const std::uint64_t ours = gpu < gpus ? projectionBytes[gpu] : 0;
            rows.push_back(checkRow(row.name.substr(0, row.name.find(' ')), row.selfMiB, ours));
            ++gpu;
        } else if (row.name == "Host") {
            rows.push_back(
                checkRow("Host", row.selfMiB, projectionBytes.empty() ? 0 : projectionBytes.back()));
        }
    }
    return rows;
}

std::vector<std::string> projectionToolArgs(const std::string& modelPath, const ServerSettings& settings) {
    std::vector<std::string> args = {"-m", modelPath};
    for (const std::string& word : toServerArgs(settings)) {
        if (word != "-kvu" && word != "-no-kvu") {
            args.push_back(word);
        }
    }
    args.insert(args.end(), {"--fit-print", "on", "-lv", "4"});
    return args;
}

ServerSettings projectionSettings(const ServerSettings& settings) {
    return fitMeasuredSettings(settings, FitProgram::LlamaFitParams);
}

std::vector<MemoryBreakdownRow> parseProjectionPrint(std::string_view toolStdout) {
    std::vector<MemoryBreakdownRow> rows;
    std::istringstream lines{std::string(toolStdout)};
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        MemoryBreakdownRow row;
        std::string extra;
        if (!(words >> row.name >> row.modelMiB >> row.contextMiB >> row.computeMiB) || (words >> extra)) {
            continue; // not a device line
        }
        row.selfMiB = row.modelMiB + row.contextMiB + row.computeMiB;
        if (row.name != "Host") {
            row.freeMiB = 0; // a device row (compareProjections tells them apart by it)
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

Result<std::vector<ProjectionCheckRow>>
checkProjection(std::string_view toolLog, const MemoryEstimate& estimate, std::string_view toolStdout) {
    Result<AllocationLog> log = parseAllocationLog(toolLog);
    if (log && !log->breakdownTables.empty() && isWholeBreakdownTable(log->breakdownTables.front())) {
        return compareProjections(log->breakdownTables.front(), fitProjection(estimate));
    }
    const std::vector<MemoryBreakdownRow> printed = parseProjectionPrint(toolStdout);
    if (!isWholeBreakdownTable(printed)) {
        return makeError("verify.no-table", "the log holds no complete memory breakdown table");
    }
    return compareProjections(printed, fitProjection(estimate));
}

std::optional<std::string> buildTag(std::string_view versionText) {
    constexpr std::string_view kBuild = "(build ";
    const std::size_t at = versionText.find(kBuild);
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    std::size_t end = at + kBuild.size();
    while (end < versionText.size() && versionText[end] >= '0' && versionText[end] <= '9') {
        ++end;
    }
    if (end == at + kBuild.size()) {
        return std::nullopt;
    }
    return "b" + std::string(versionText.substr(at + kBuild.size(), end - at - kBuild.size()));
}

} // namespace llamafit
