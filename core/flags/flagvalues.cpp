// Flag value readers/writers; see flagvalues.h. Where llama.cpp is lenient by
// accident (std::stoi reads "4096k" as 4096) we are strict: the whole value must parse.

#include "core/flags/flagvalues.h"
#include "core/common/asciitext.h"

#include "core/common/units.h"
#include "core/sizing/estimator.h"
#include "core/sizing/rpcdevices.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

namespace llamafit {

namespace {

template <typename T> std::optional<T> parseNumber(std::string_view text) {
    T number{};
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, number);
    if (text.empty() || ec != std::errc{} || ptr != end) {
        return std::nullopt;
    }
    return number;
}

struct BackendName {
    std::string_view keyword;      // as typed in --gpu cuda:...
    std::string_view bufferPrefix; // how llama.cpp names its devices: CUDA0, Vulkan0, ROCm0, MTL0
    Backend backend;
};

constexpr std::array kBackends = std::to_array<BackendName>({
    {"cuda", "CUDA", Backend::Cuda},
    {"vulkan", "Vulkan", Backend::Vulkan},
    {"rocm", "ROCm", Backend::Rocm},
    {"hip", "ROCm", Backend::Rocm},
    {"metal", "MTL", Backend::Metal},
    {"rpc", "RPC", Backend::Rpc}, // its name is the endpoint: rpc:127.0.0.1:50052
    {"other", "GPU", Backend::Other},
});

const BackendName* backendByKeyword(std::string_view keyword) {
    const std::string lower = asciiLower(keyword);
    for (const BackendName& b : kBackends) {
        if (b.keyword == lower) {
            return &b;
        }
    }
    return nullptr;
}

// "CUDA1" -> Cuda: a name spelled like llama.cpp's buffer names tells its backend. Not RPC: an
// RPC device needs its endpoint (rpc:HOST:PORT).
Backend backendFromDeviceName(std::string_view name) {
    for (const BackendName& b : kBackends) {
        if (b.backend != Backend::Rpc && name.size() > b.bufferPrefix.size() &&
            name.substr(0, b.bufferPrefix.size()) == b.bufferPrefix &&
            parseNumber<unsigned>(name.substr(b.bufferPrefix.size()))) {
            return b.backend;
        }
    }
    return Backend::Other;
}

} // namespace

std::vector<std::string_view> split(std::string_view text, std::string_view separators) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    while (true) {
        const std::size_t end = text.find_first_of(separators, start);
        parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
        if (end == std::string_view::npos) {
            return parts;
        }
        start = end + 1;
    }
}

Error badValue(std::string_view flag, std::string_view value, std::string_view expected) {
    return makeError("args.bad-value", "bad value '" + std::string(value) + "' for " + std::string(flag) +
                                           ": expected " + std::string(expected));
}

std::optional<Error> readUint32(std::string_view flag, std::string_view value, std::uint32_t& out) {
    const std::optional<std::uint32_t> number = parseNumber<std::uint32_t>(value);
    if (!number) {
        return badValue(flag, value, "a non-negative integer");
    }
    out = *number;
    return std::nullopt;
}

std::optional<Error> readUint32(std::string_view flag, std::string_view value,
                                std::optional<std::uint32_t>& out) {
    std::uint32_t number = 0;
    if (std::optional<Error> error = readUint32(flag, value, number)) {
        return error;
    }
    out = number;
    return std::nullopt;
}

// -cram / -ctxcp: a plain C int in llama.cpp (common/arg.cpp); -cram takes -1 for "no limit".
std::optional<Error> readInt32(std::string_view flag, std::string_view value, std::int32_t& out) {
    const std::optional<std::int32_t> number = parseNumber<std::int32_t>(value);
    if (!number) {
        return badValue(flag, value, "an integer");
    }
    out = *number;
    return std::nullopt;
}

std::optional<Error> checkStoiInteger(std::string_view flag, std::string_view value) {
    std::string_view digits = value;
    while (!digits.empty() && (digits.front() == ' ' || (digits.front() >= '\t' && digits.front() <= '\r'))) {
        digits.remove_prefix(1);
    }
    if (!digits.empty() && digits.front() == '+') {
        digits.remove_prefix(1); // std::from_chars takes '-' but not '+'; std::stoi takes both
    }
    int number = 0;
    if (std::from_chars(digits.data(), digits.data() + digits.size(), number).ec != std::errc()) {
        // llama.cpp common/arg.cpp: the exception std::stoi throws (invalid_argument,
        // out_of_range) ends llama-server with "error while handling argument".
        return badValue(
            flag, value,
            "an integer llama-server can read (it reads this value with std::stoi and stops on it)");
    }
    return std::nullopt;
}

std::optional<Error> readSlotCount(std::string_view flag, std::string_view value,
                                   std::optional<std::uint32_t>& out) {
    const std::optional<std::int64_t> number = parseNumber<std::int64_t>(value);
    // llama.cpp common/arg.cpp: "-np 0" throws "invalid value for n_parallel"; tools/server/server.cpp
    // treats any negative value as auto (4 slots, unified KV).
    if (!number || *number == 0 || *number > std::numeric_limits<std::uint32_t>::max()) {
        return badValue(flag, value, "a slot count > 0, or -1 for auto");
    }
    out = *number < 0 ? std::nullopt : std::optional<std::uint32_t>(static_cast<std::uint32_t>(*number));
    return std::nullopt;
}

std::optional<Error> readCacheType(std::string_view flag, std::string_view value, GgmlType& out) {
    const std::optional<GgmlType> type = ggmlTypeFromName(value);
    const std::vector<GgmlType>& allowed = allowedCacheTypes();
    // llama.cpp common/arg.cpp kv_cache_types: anything else is "Unsupported cache type".
    if (!type || std::find(allowed.begin(), allowed.end(), *type) == allowed.end()) {
        std::string names;
        for (GgmlType t : allowed) {
            names += (names.empty() ? "" : ", ") + std::string(ggmlTypeName(t));
        }
        return badValue(flag, value, "one of " + names);
    }
    out = *type;
    return std::nullopt;
}

std::optional<Error> readGpuLayers(std::string_view flag, std::string_view value,
                                   std::optional<GpuLayers>& out) {
    const std::optional<GpuLayers> layers = GpuLayers::fromText(value);
    if (!layers) {
        return badValue(flag, value, "a layer count, 'auto' or 'all'");
    }
    out = *layers;
    return std::nullopt;
}

std::optional<Error> readTensorSplit(std::string_view flag, std::string_view value,
                                     std::vector<double>& out) {
    // llama.cpp common/arg.cpp splits -ts on runs of ',' and '/'.
    std::vector<double> shares;
    for (std::string_view part : split(value, ",/")) {
        if (part.empty()) {
            continue;
        }
        const std::optional<double> share = parseNumber<double>(part);
        if (!share || *share < 0 || !std::isfinite(*share)) {
            return badValue(flag, value, "non-negative proportions separated by ',' or '/', e.g. 3,1");
        }
        // llama.cpp reads each share with std::stof, which throws on a value a float cannot hold
        // (over FLT_MAX, or so small it underflows): llama-server then refuses the argument.
        if (*share > std::numeric_limits<float>::max() ||
            (*share != 0 && *share < std::numeric_limits<float>::min())) {
            return badValue(
                flag, value,
                "proportions a float can hold (llama-server reads them with std::stof and refuses "
                "'" +
                    std::string(part) + "')");
        }
        shares.push_back(*share);
    }
    if (shares.empty()) {
        return badValue(flag, value, "non-negative proportions separated by ',' or '/', e.g. 3,1");
    }
    out = std::move(shares);
    return std::nullopt;
}

std::optional<Error> readTensorOverrides(std::string_view flag, std::string_view value,
                                         std::vector<TensorOverride>& out) {
    // llama.cpp common/arg.cpp parse_tensor_buffer_overrides: comma list of pattern=BUFT; each
    // -ot appends. The buffer type is checked against the devices later (the estimator knows them).
    for (std::string_view part : split(value, ",")) {
        const std::size_t equals = part.find('=');
        if (equals == std::string_view::npos || equals == 0 || equals + 1 == part.size()) {
            return badValue(flag, value, "<tensor name pattern>=<buffer type>,...");
        }
        out.push_back({std::string(part.substr(0, equals)), std::string(part.substr(equals + 1))});
    }
    return std::nullopt;
}

std::optional<Error> readLoadMode(std::string_view flag, std::string_view value, LoadMode& out,
                                  std::vector<std::string>& notes) {
    // llama.cpp src/llama-model-loader.cpp: use_mmap only for auto, mmap and mmap+mlock; mlock
    // and dio read the weights into memory like none. Locking pages does not change sizes.
    if (value == "auto") {
        out = LoadMode::Auto;
    } else if (value == "mmap" || value == "mmap+mlock") {
        out = LoadMode::Mmap;
    } else if (value == "none" || value == "mlock" || value == "dio") {
        out = LoadMode::None;
    } else {
        return badValue(flag, value, "auto, none, mmap, mlock, mmap+mlock or dio");
    }
    if (value == "mlock" || value == "dio" || value == "mmap+mlock") {
        notes.push_back(std::string(flag) + " " + std::string(value) + " sized as -lm " +
                        std::string(loadModeName(out)));
    }
    return std::nullopt;
}

// The ",storage-mib=N,alloc-mib=N" tail of --gpu: the device limits (serversettings.h DeviceLimits).
std::optional<DeviceLimits> readDeviceLimits(std::string_view tail) {
    DeviceLimits limits;
    while (!tail.empty()) {
        const std::size_t comma = tail.find(',');
        const std::string_view item = tail.substr(0, comma);
        tail = comma == std::string_view::npos ? std::string_view{} : tail.substr(comma + 1);
        const std::size_t equals = item.find('=');
        const std::optional<std::uint64_t> mib = equals == std::string_view::npos
                                                     ? std::nullopt
                                                     : parseNumber<std::uint64_t>(item.substr(equals + 1));
        if (!mib || *mib == 0 || *mib > std::numeric_limits<std::uint32_t>::max()) {
            return std::nullopt;
        }
        const std::string_view key = item.substr(0, equals);
        if (key == "storage-mib") {
            limits.maxStorageBufferRangeBytes = *mib * kMiB;
        } else if (key == "alloc-mib") {
            limits.maxAllocationBytes = *mib * kMiB;
        } else {
            return std::nullopt;
        }
    }
    return limits;
}

std::optional<Error> readGpu(std::string_view flag, std::string_view value, bool integrated,
                             std::vector<GpuDevice>& gpus) {
    constexpr std::string_view expected =
        "[BACKEND:]NAME=MiB or BACKEND=MiB (BACKEND: cuda, vulkan, rocm, "
        "metal), optionally followed by ,storage-mib=N and ,alloc-mib=N; or "
        "rpc:HOST:PORT=MiB";
    const std::string_view whole = value;
    std::optional<DeviceLimits> limits = DeviceLimits{};
    if (const std::size_t comma = value.find(','); comma != std::string_view::npos) {
        limits = readDeviceLimits(value.substr(comma + 1));
        value = value.substr(0, comma);
    }
    if (!limits) {
        return badValue(flag, whole, expected);
    }
    const std::size_t equals = value.rfind('=');
    if (equals == std::string_view::npos) {
        return badValue(flag, value, expected);
    }
    const std::optional<std::uint64_t> mib = parseNumber<std::uint64_t>(value.substr(equals + 1));
    if (!mib || *mib == 0 || *mib > std::numeric_limits<std::uint64_t>::max() / kMiB) {
        return badValue(flag, value, expected);
    }
    std::string_view label = value.substr(0, equals);
    const BackendName* backend = nullptr;
    if (const std::size_t colon = label.find(':'); colon != std::string_view::npos) {
        backend = backendByKeyword(label.substr(0, colon));
        if (backend == nullptr) {
            return badValue(flag, value, expected);
        }
        label = label.substr(colon + 1);
    } else if ((backend = backendByKeyword(label)) != nullptr) {
        label = {};
    }
    if (label.empty() && backend == nullptr) {
        return badValue(flag, value, expected);
    }
    if (backend != nullptr && backend->backend == Backend::Rpc) {
        // The free memory ggml-rpc-server prints at start: "CPU: ... (24105 MiB, 24105 MiB free)".
        if (!checkRpcEndpoint(label).ok()) {
            return badValue(flag, value,
                            "rpc:HOST:PORT=MiB, the server's free memory, e.g. rpc:127.0.0.1:50052=24105");
        }
        GpuDevice gpu = rpcDevice(label, *mib * kMiB);
        if (std::any_of(gpus.begin(), gpus.end(),
                        [&](const GpuDevice& other) { return other.name == gpu.name; })) {
            return badValue(flag, value, "an RPC server not given before (" + std::string(label) + " is)");
        }
        gpus.push_back(std::move(gpu));
        return std::nullopt;
    }
    GpuDevice gpu;
    gpu.memoryBytes = *mib * kMiB;
    gpu.limits = *limits;
    gpu.integrated = integrated;
    gpu.backend = backend != nullptr ? backend->backend : backendFromDeviceName(label);
    if (label.empty()) {
        // Number devices per backend like llama.cpp does: the second CUDA GPU is CUDA1.
        const auto sameBackend = std::count_if(
            gpus.begin(), gpus.end(), [&](const GpuDevice& other) { return other.backend == gpu.backend; });
        gpu.name = std::string(backend->bufferPrefix) + std::to_string(sameBackend);
    } else {
        gpu.name = std::string(label);
    }
    if (std::any_of(gpus.begin(), gpus.end(),
                    [&](const GpuDevice& other) { return other.name == gpu.name; })) {
        return badValue(flag, value, "a GPU name not given before (" + gpu.name + " is)");
    }
    gpus.push_back(std::move(gpu));
    return std::nullopt;
}

std::optional<Error> readRpcServers(std::string_view flag, std::string_view value,
                                    std::vector<std::string>& servers) {
    // llama.cpp common/arg.cpp add_rpc_devices: a comma list, each entry one server; every --rpc
    // adds its servers to those before.
    for (std::string_view part : split(value, ",")) {
        if (!checkRpcEndpoint(part).ok()) {
            return badValue(flag, value, "host:port[,host:port...], e.g. 127.0.0.1:50052");
        }
        if (std::find(servers.begin(), servers.end(), part) != servers.end()) {
            return badValue(flag, value, "each RPC server once (" + std::string(part) + " is named twice)");
        }
        servers.emplace_back(part);
    }
    return std::nullopt;
}

std::optional<FlashAttention> flashAttentionFromName(std::string_view value) {
    // llama.cpp common/arg.cpp is_truthy / is_falsey / is_autoy.
    if (value == "on" || value == "enabled" || value == "true" || value == "1") {
        return FlashAttention::On;
    }
    if (value == "off" || value == "disabled" || value == "false" || value == "0") {
        return FlashAttention::Off;
    }
    if (value == "auto" || value == "-1") {
        return FlashAttention::Auto;
    }
    return std::nullopt;
}

std::string_view flashAttentionName(FlashAttention mode) {
    switch (mode) {
    case FlashAttention::On:
        return "on";
    case FlashAttention::Off:
        return "off";
    case FlashAttention::Auto:
        break;
    }
    return "auto";
}

std::string_view loadModeName(LoadMode mode) {
    switch (mode) {
    case LoadMode::Mmap:
        return "mmap";
    case LoadMode::None:
        return "none";
    case LoadMode::Auto:
        break;
    }
    return "auto";
}

std::string rpcServersText(const std::vector<std::string>& servers) {
    std::string text;
    for (const std::string& server : servers) {
        text += (text.empty() ? "" : ",") + server;
    }
    return text;
}

std::string tensorSplitText(const std::vector<double>& split) {
    std::string text;
    for (double share : split) {
        std::array<char, 32> buffer{};
        // Shortest text that reads back as the same double, so -ts round-trips exactly.
        const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), share);
        if (!text.empty()) {
            text += ',';
        }
        text.append(buffer.data(), ec == std::errc{} ? end : buffer.data());
    }
    return text;
}

} // namespace llamafit
