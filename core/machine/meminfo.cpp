// Line-oriented "Key: value [kB]" parsing for procfs files (see meminfo.h).

#include "core/machine/meminfo.h"

#include "core/common/units.h"

#include <charconv>

namespace llamafit {

namespace {

std::string_view trim(std::string_view text) {
    const std::size_t first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) {
        return {};
    }
    const std::size_t last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

// Calls visit(key, value) for each "key: value" line until it returns false.
template <typename Visit> void forEachField(std::string_view text, Visit visit) {
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        const std::size_t colon = line.find(':');
        if (colon == std::string_view::npos) {
            continue;
        }
        if (!visit(trim(line.substr(0, colon)), trim(line.substr(colon + 1)))) {
            return;
        }
    }
}

std::optional<std::uint64_t> parseKiBValue(std::string_view value) {
    std::uint64_t number = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
    if (error != std::errc{} || end == value.data()) {
        return std::nullopt;
    }
    const std::string_view unit =
        trim(std::string_view(end, static_cast<std::size_t>(value.data() + value.size() - end)));
    if (unit.empty()) {
        return number;
    }
    // procfs "kB" is 1024 bytes (fs/proc/meminfo.c shifts pages by PAGE_SHIFT - 10).
    if (unit != "kB" || number > UINT64_MAX / kKiB) {
        return std::nullopt;
    }
    return number * kKiB;
}

} // namespace

std::optional<std::uint64_t> findProcKiBField(std::string_view text, std::string_view key) {
    std::optional<std::uint64_t> result;
    forEachField(text, [&](std::string_view name, std::string_view value) {
        if (name != key) {
            return true;
        }
        result = parseKiBValue(value);
        return false;
    });
    return result;
}

Result<HostMemory> parseMemInfo(std::string_view text) {
    const std::optional<std::uint64_t> total = findProcKiBField(text, "MemTotal");
    const std::optional<std::uint64_t> available = findProcKiBField(text, "MemAvailable");
    if (!total) {
        return makeError("meminfo.missing-field", "/proc/meminfo has no readable MemTotal line");
    }
    if (!available) {
        return makeError("meminfo.missing-field",
                         "/proc/meminfo has no readable MemAvailable line (kernel older than 3.14?)");
    }
    return HostMemory{*total, *available};
}

Result<std::uint64_t> parseProcessRssBytes(std::string_view statusText) {
    const std::optional<std::uint64_t> rss = findProcKiBField(statusText, "VmRSS");
    if (!rss) {
        return makeError("proc-status.missing-field", "process status has no readable VmRSS line");
    }
    return *rss;
}

CpuInfo parseCpuInfo(std::string_view text) {
    CpuInfo info;
    std::string fallbackName;
    forEachField(text, [&](std::string_view name, std::string_view value) {
        if (name == "processor") {
            ++info.logicalCpus;
        } else if (name == "model name" && info.modelName.empty()) {
            info.modelName = std::string(value);
        } else if ((name == "Model" || name == "Hardware") && fallbackName.empty()) {
            fallbackName = std::string(value);
        }
        return true;
    });
    if (info.modelName.empty()) {
        info.modelName = std::move(fallbackName);
    }
    return info;
}

} // namespace llamafit
