// Readers and writers of the memory rows; see settingflags.h. The value rules follow
// llama.cpp common/arg.cpp, so a value the server accepts reads here and one it rejects
// (-np 0, -ctk q4_K) is an error here.

#include "core/flags/settingflags.h"

#include "core/flags/flagvalues.h"
#include "core/flags/serverargs.h"

#include <charconv>

namespace llamafit::settingflags {

namespace {

std::vector<FlagValues> once(std::string value) {
    return {FlagValues{std::move(value)}};
}

std::vector<FlagValues> switchIf(bool on) {
    return on ? std::vector<FlagValues>{FlagValues{}} : std::vector<FlagValues>{};
}

const ServerSettings kDefaults;

} // namespace

std::optional<Error> readModel(std::string_view, const FlagValues& values, ParsedServerArgs& parsed) {
    parsed.model = values.front();
    return std::nullopt;
}

std::optional<Error> readContext(std::string_view spelling, const FlagValues& values,
                                 ParsedServerArgs& parsed) {
    return readUint32(spelling, values.front(), parsed.settings.contextTokens);
}

std::optional<Error> readParallel(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed) {
    return readSlotCount(spelling, values.front(), parsed.settings.parallelSlots);
}

std::optional<Error> readKvUnified(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.kvUnified = true;
    return std::nullopt;
}

std::optional<Error> readNoKvUnified(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.kvUnified = false;
    return std::nullopt;
}

std::optional<Error> readCacheTypeK(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed) {
    return readCacheType(spelling, values.front(), parsed.settings.cacheTypeK);
}

std::optional<Error> readCacheTypeV(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed) {
    return readCacheType(spelling, values.front(), parsed.settings.cacheTypeV);
}

// -fa takes on|off|auto in 0.7.0; older builds had a bare -fa meaning "on".
std::optional<Error> readFlashAttention(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed) {
    if (values.empty()) {
        parsed.settings.flashAttention = FlashAttention::On;
        parsed.notes.push_back("bare " + std::string(spelling) +
                               " (older builds) read as -fa on; 0.7.0 needs on|off|auto");
        return std::nullopt;
    }
    const std::optional<FlashAttention> mode = flashAttentionFromName(values.front());
    if (!mode) {
        return badValue(spelling, values.front(), "on, off or auto");
    }
    parsed.settings.flashAttention = *mode;
    return std::nullopt;
}

std::optional<Error> readBatch(std::string_view spelling, const FlagValues& values,
                               ParsedServerArgs& parsed) {
    return readUint32(spelling, values.front(), parsed.settings.batchTokens);
}

std::optional<Error> readUbatch(std::string_view spelling, const FlagValues& values,
                                ParsedServerArgs& parsed) {
    return readUint32(spelling, values.front(), parsed.settings.ubatchTokens);
}

std::optional<Error> readGpuLayers(std::string_view spelling, const FlagValues& values,
                                   ParsedServerArgs& parsed) {
    return llamafit::readGpuLayers(spelling, values.front(), parsed.settings.gpuLayers);
}

std::optional<Error> readSwaFull(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.swaFull = true;
    return std::nullopt;
}

std::optional<Error> readKvOffload(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.kvOffload = true;
    return std::nullopt;
}

std::optional<Error> readNoKvOffload(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.kvOffload = false;
    return std::nullopt;
}

std::optional<Error> readTensorSplit(std::string_view spelling, const FlagValues& values,
                                     ParsedServerArgs& parsed) {
    return llamafit::readTensorSplit(spelling, values.front(), parsed.settings.tensorSplit);
}

std::optional<Error> readOverrideTensor(std::string_view spelling, const FlagValues& values,
                                        ParsedServerArgs& parsed) {
    return readTensorOverrides(spelling, values.front(), parsed.settings.tensorOverrides);
}

std::optional<Error> readCpuMoe(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.cpuMoe = true;
    return std::nullopt;
}

std::optional<Error> readCpuMoeLayers(std::string_view spelling, const FlagValues& values,
                                      ParsedServerArgs& parsed) {
    return readUint32(spelling, values.front(), parsed.settings.cpuMoeLayers);
}

std::optional<Error> readLoadMode(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed) {
    return llamafit::readLoadMode(spelling, values.front(), parsed.settings.loadMode, parsed.notes);
}

std::optional<Error> readRepack(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.repack = true;
    return std::nullopt;
}

std::optional<Error> readNoRepack(std::string_view, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.repack = false;
    return std::nullopt;
}

std::optional<Error> readCacheRam(std::string_view spelling, const FlagValues& values,
                                  ParsedServerArgs& parsed) {
    return readInt32(spelling, values.front(), parsed.settings.cacheRamMiB);
}

std::optional<Error> readContextCheckpoints(std::string_view spelling, const FlagValues& values,
                                            ParsedServerArgs& parsed) {
    return readInt32(spelling, values.front(), parsed.settings.contextCheckpoints);
}

// LlamaFit's planning form `--rpc HOST:PORT=FREE_MiB,...` (llamafit-cli estimate, fit, plan): a
// server given with its free memory is planned without a connection, as `--gpu rpc:HOST:PORT=MiB`
// would; llama-server itself is given the endpoints only (writeRpcServers).
std::optional<Error> readRpcServers(std::string_view spelling, const FlagValues& values,
                                    ParsedServerArgs& parsed) {
    const std::string& value = values.front();
    std::string endpoints;
    for (const std::string_view piece : split(value, ",")) {
        const std::string part(piece);
        const std::size_t equals = part.find('=');
        endpoints += (endpoints.empty() ? "" : ",") + part.substr(0, equals);
        if (equals == std::string::npos) {
            continue;
        }
        std::uint64_t mib = 0;
        const std::string free = part.substr(equals + 1);
        const auto [end, error] = std::from_chars(free.data(), free.data() + free.size(), mib);
        if (error != std::errc{} || end != free.data() + free.size() || free.empty() || mib == 0) {
            return badValue(spelling, value, "host:port[=FREE_MiB][,...], e.g. 127.0.0.1:50052=24105");
        }
        if (std::optional<Error> invalid = llamafit::readGpu("--gpu", "rpc:" + part, false, parsed.gpus)) {
            return badValue(spelling, value, "host:port[=FREE_MiB][,...], e.g. 127.0.0.1:50052=24105");
        }
    }
    return llamafit::readRpcServers(spelling, endpoints, parsed.settings.rpcServers);
}

std::optional<Error> readGpu(std::string_view spelling, const FlagValues& values, ParsedServerArgs& parsed) {
    return llamafit::readGpu(spelling, values.front(), false, parsed.gpus);
}

std::optional<Error> readIntegratedGpu(std::string_view spelling, const FlagValues& values,
                                       ParsedServerArgs& parsed) {
    return llamafit::readGpu(spelling, values.front(), true, parsed.gpus);
}

// llama.cpp common/arg.cpp (b10587, the last source with these aliases): --mmap -> mmap,
// --no-mmap -> none, --mlock -> mlock, -dio -> dio, -ndio -> none; src/llama-model-loader.cpp
// maps only auto/mmap/mmap+mlock to use_mmap, so mlock and dio load like none.
std::optional<Error> readLegacyMmap(std::string_view spelling, const FlagValues&, ParsedServerArgs& parsed) {
    parsed.settings.loadMode = LoadMode::Mmap;
    parsed.notes.push_back(std::string(spelling) + " (rejected by llama-server 0.7.0) sized as -lm mmap");
    return std::nullopt;
}

std::optional<Error> readLegacyNoMmap(std::string_view spelling, const FlagValues&,
                                      ParsedServerArgs& parsed) {
    parsed.settings.loadMode = LoadMode::None;
    parsed.notes.push_back(std::string(spelling) +
                           " (rejected by llama-server 0.7.0) sized as -lm none (weights are read into "
                           "memory, not mapped)");
    return std::nullopt;
}

std::vector<FlagValues> writeContext(const ServerSettings& s) {
    return s.contextTokens ? once(std::to_string(*s.contextTokens)) : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeParallel(const ServerSettings& s) {
    return s.parallelSlots ? once(std::to_string(*s.parallelSlots)) : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeKvUnified(const ServerSettings& s) {
    return switchIf(s.kvUnified == true);
}

std::vector<FlagValues> writeNoKvUnified(const ServerSettings& s) {
    return switchIf(s.kvUnified == false);
}

std::vector<FlagValues> writeCacheTypeK(const ServerSettings& s) {
    return s.cacheTypeK != kDefaults.cacheTypeK ? once(std::string(ggmlTypeName(s.cacheTypeK)))
                                                : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeCacheTypeV(const ServerSettings& s) {
    return s.cacheTypeV != kDefaults.cacheTypeV ? once(std::string(ggmlTypeName(s.cacheTypeV)))
                                                : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeFlashAttention(const ServerSettings& s) {
    return s.flashAttention != kDefaults.flashAttention
               ? once(std::string(flashAttentionName(s.flashAttention)))
               : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeBatch(const ServerSettings& s) {
    return s.batchTokens != kDefaults.batchTokens ? once(std::to_string(s.batchTokens))
                                                  : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeUbatch(const ServerSettings& s) {
    return s.ubatchTokens != kDefaults.ubatchTokens ? once(std::to_string(s.ubatchTokens))
                                                    : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeGpuLayers(const ServerSettings& s) {
    return s.gpuLayers ? once(s.gpuLayers->text()) : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeSwaFull(const ServerSettings& s) {
    return switchIf(s.swaFull);
}

std::vector<FlagValues> writeNoKvOffload(const ServerSettings& s) {
    return switchIf(!s.kvOffload);
}

std::vector<FlagValues> writeTensorSplit(const ServerSettings& s) {
    return s.tensorSplit.empty() ? std::vector<FlagValues>{} : once(tensorSplitText(s.tensorSplit));
}

std::vector<FlagValues> writeRpcServers(const ServerSettings& s) {
    return s.rpcServers.empty() ? std::vector<FlagValues>{} : once(rpcServersText(s.rpcServers));
}

// One -ot per override: a pattern may hold a comma, which -ot would split on.
std::vector<FlagValues> writeOverrideTensor(const ServerSettings& s) {
    std::vector<FlagValues> occurrences;
    for (const TensorOverride& override : s.tensorOverrides) {
        occurrences.push_back({override.pattern + "=" + override.bufferType});
    }
    return occurrences;
}

std::vector<FlagValues> writeCpuMoe(const ServerSettings& s) {
    return switchIf(s.cpuMoe);
}

std::vector<FlagValues> writeCpuMoeLayers(const ServerSettings& s) {
    return s.cpuMoeLayers != kDefaults.cpuMoeLayers ? once(std::to_string(s.cpuMoeLayers))
                                                    : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeLoadMode(const ServerSettings& s) {
    return s.loadMode != kDefaults.loadMode ? once(std::string(loadModeName(s.loadMode)))
                                            : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeNoRepack(const ServerSettings& s) {
    return switchIf(!s.repack);
}

std::vector<FlagValues> writeCacheRam(const ServerSettings& s) {
    return s.cacheRamMiB != kDefaults.cacheRamMiB ? once(std::to_string(s.cacheRamMiB))
                                                  : std::vector<FlagValues>{};
}

std::vector<FlagValues> writeContextCheckpoints(const ServerSettings& s) {
    return s.contextCheckpoints != kDefaults.contextCheckpoints ? once(std::to_string(s.contextCheckpoints))
                                                                : std::vector<FlagValues>{};
}

bool isFlashAttentionValue(std::string_view word) {
    return flashAttentionFromName(word).has_value();
}

} // namespace llamafit::settingflags
