// readFitParams(); see fitflags.h. Grammar from llama-server 0.7.0 --help ("target margin per
// device for --fit, comma-separated list of values, single value is broadcast across all
// devices", "minimum ctx size that can be set by --fit option") and common/arg.cpp.

#include "core/flags/fitflags.h"

#include "core/flags/flagvalues.h"

namespace llamafit {

namespace {

std::optional<Error> readTargets(const ParsedFlag& flag, std::vector<std::uint64_t>& targets) {
    targets.clear();
    const std::string& text = flag.values.front();
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t end = text.find_first_of(",/", start);
        const std::string item =
            text.substr(start, end == std::string::npos ? std::string::npos : end - start);
        std::uint32_t mib = 0;
        if (std::optional<Error> error = readUint32(flag.spelling, item, mib)) {
            return badValue(flag.spelling, text, "MiB per device, comma-separated (e.g. 1024 or 2048,512)");
        }
        targets.push_back(mib);
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    return std::nullopt;
}

} // namespace

namespace {

std::optional<Error> readFitFlag(const ParsedFlag& flag, FitParams& params) {
    if (flag.values.empty()) {
        return std::nullopt;
    }
    const std::string& value = flag.values.front();
    if (flag.id == FlagId::Fit) {
        if (value != "on" && value != "off") {
            return badValue(flag.spelling, value, "on or off");
        }
        params.enabled = value == "on";
    } else if (flag.id == FlagId::FitTarget) {
        return readTargets(flag, params.targetsMiB);
    } else if (flag.id == FlagId::FitContext) {
        params.fullContextRequested = false;
        return readUint32(flag.spelling, value, params.minContextTokens);
    } else if (flag.setting == Setting::Context) {
        params.fullContextRequested = value == "0";
    }
    return std::nullopt;
}

} // namespace

Result<FitParams> readFitParams(const ParsedServerArgs& parsed) {
    FitParams params;
    for (const ParsedFlag& flag : parsed.flags) {
        if (std::optional<Error> error = readFitFlag(flag, params)) {
            error->flag = flag.spelling;
            return *error;
        }
    }
    return params;
}

} // namespace llamafit
