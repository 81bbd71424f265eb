// llama-server command line <-> ServerSettings; see serverargs.h. The value rules follow
// llama.cpp common/arg.cpp (the table behind `llama-server --help`), so a command line
// the server accepts parses here, and one it rejects (-np 0, -ctk q4_K) is an error here.

#include "core/sizing/serverargs.h"

#include "core/sizing/serverargsvalues.h"
#include "core/sizing/serverflagtable.h"

#include <array>
#include <optional>
#include <string_view>

namespace llamafit {

namespace {

// clang-format off
enum class Flag {
    Model, Context, Parallel, KvUnified, NoKvUnified, CacheTypeK, CacheTypeV, FlashAttention, Batch, Ubatch,
    GpuLayers, SwaFull, KvOffload, NoKvOffload, TensorSplit, OverrideTensor, CpuMoe, CpuMoeLayers, LoadMode,
    Repack, NoRepack, Gpu, IntegratedGpu, CacheRam, ContextCheckpoints,
    // Spellings older builds accepted and 0.7.0 rejects ("error: invalid argument: --no-mmap").
    LegacyMmap, LegacyNoMmap, LegacyMlock, LegacyDirectIo, LegacyNoDirectIo,
};
// clang-format on

struct FlagSpelling {
    std::string_view spellings; // space-separated
    Flag flag;
    bool takesValue;
};

// clang-format off
constexpr std::array kMemoryFlags = std::to_array<FlagSpelling>({
    {"-m --model", Flag::Model, true},
    {"-c --ctx-size", Flag::Context, true},
    {"-np --parallel", Flag::Parallel, true},
    {"-kvu --kv-unified", Flag::KvUnified, false},
    {"-no-kvu --no-kv-unified", Flag::NoKvUnified, false},
    {"-ctk --cache-type-k", Flag::CacheTypeK, true},
    {"-ctv --cache-type-v", Flag::CacheTypeV, true},
    {"-fa --flash-attn", Flag::FlashAttention, true},
    {"-b --batch-size", Flag::Batch, true},
    {"-ub --ubatch-size", Flag::Ubatch, true},
    {"-ngl --gpu-layers --n-gpu-layers", Flag::GpuLayers, true},
    {"--swa-full", Flag::SwaFull, false},
    {"-kvo --kv-offload", Flag::KvOffload, false},
    {"-nkvo --no-kv-offload", Flag::NoKvOffload, false},
    {"-ts --tensor-split", Flag::TensorSplit, true},
    {"-ot --override-tensor", Flag::OverrideTensor, true},
    {"-cmoe --cpu-moe", Flag::CpuMoe, false},
    {"-ncmoe --n-cpu-moe", Flag::CpuMoeLayers, true},
    {"-lm --load-mode", Flag::LoadMode, true},
    {"--repack", Flag::Repack, false},
    {"-nr --no-repack", Flag::NoRepack, false},
    {"--gpu", Flag::Gpu, true},
    {"-cram --cache-ram", Flag::CacheRam, true},
    {"-ctxcp --ctx-checkpoints --swa-checkpoints", Flag::ContextCheckpoints, true},
    {"--gpu-igpu", Flag::IntegratedGpu, true},
    {"--mmap", Flag::LegacyMmap, false},
    {"--no-mmap", Flag::LegacyNoMmap, false},
    {"--mlock", Flag::LegacyMlock, false},
    {"-dio --direct-io", Flag::LegacyDirectIo, false},
    {"-ndio --no-direct-io", Flag::LegacyNoDirectIo, false},
});
// clang-format on

bool hasSpelling(std::string_view spellings, std::string_view spelling) {
    while (!spellings.empty()) {
        const std::size_t end = spellings.find(' ');
        if (spellings.substr(0, end) == spelling) {
            return true;
        }
        spellings = end == std::string_view::npos ? std::string_view{} : spellings.substr(end + 1);
    }
    return false;
}

const FlagSpelling* findMemoryFlag(std::string_view spelling) {
    for (const FlagSpelling& entry : kMemoryFlags) {
        if (hasSpelling(entry.spellings, spelling)) {
            return &entry;
        }
    }
    return nullptr;
}

// Walks the argument list; knows whether the current flag came as "--flag=value".
class ArgReader {
  public:
    explicit ArgReader(const std::vector<std::string>& args) : m_args(args) {}

    bool atEnd() const { return m_next >= m_args.size(); }

    // Splits the next word into flag name and an inline "=value" part.
    std::string_view nextFlag() {
        std::string_view word = m_args[m_next++];
        m_inlineValue.reset();
        const std::size_t equals = word.find('=');
        if (word.size() > 1 && word[0] == '-' && equals != std::string_view::npos) {
            m_inlineValue = word.substr(equals + 1);
            word = word.substr(0, equals);
        }
        return word;
    }

    std::string_view peekWord() const { return m_args[m_next]; }
    bool hasInlineValue() const { return m_inlineValue.has_value(); }
    std::optional<std::string_view> peekValue() const {
        if (m_inlineValue) {
            return m_inlineValue;
        }
        return atEnd() ? std::nullopt : std::optional<std::string_view>(m_args[m_next]);
    }

    Result<std::string> value(std::string_view flag) {
        if (m_inlineValue) {
            return std::string(*m_inlineValue);
        }
        if (atEnd()) {
            return makeError("args.missing-value", std::string(flag) + " needs a value");
        }
        return m_args[m_next++];
    }

    void skipPeekedValue() {
        if (!m_inlineValue) {
            ++m_next;
        }
    }

  private:
    const std::vector<std::string>& m_args;
    std::size_t m_next = 0;
    std::optional<std::string_view> m_inlineValue;
};

// Accepts a flag llama-server knows but that is not read into ServerSettings.
std::optional<Error> takeOtherFlag(ArgReader& reader, std::string_view flag, ParsedServerArgs& parsed) {
    const ServerFlagInfo* info = findServerFlag(flag);
    if (info == nullptr) {
        return makeError("args.unknown-flag", "unknown llama-server flag " + std::string(flag));
    }
    std::string spelled(flag);
    if (info->valueCount == 0 && reader.hasInlineValue()) {
        return makeError("args.bad-value", std::string(flag) + " takes no value");
    }
    for (int i = 0; i < info->valueCount; ++i) {
        Result<std::string> value = reader.value(flag);
        if (!value) {
            return value.error();
        }
        spelled += " " + *value;
    }
    if (info->effect == FlagEffect::Unmodelled) {
        parsed.unmodelledFlags.push_back(spelled + ": " + std::string(info->reason));
    } else {
        parsed.ignoredFlags.push_back(spelled);
    }
    return std::nullopt;
}

// -fa takes on|off|auto in 0.7.0; older builds had a bare -fa meaning "on".
std::optional<Error> takeFlashAttention(ArgReader& reader, std::string_view flag, ParsedServerArgs& parsed) {
    const std::optional<std::string_view> next = reader.peekValue();
    const std::optional<FlashAttention> mode = next ? flashAttentionFromName(*next) : std::nullopt;
    if (mode) {
        reader.skipPeekedValue();
        parsed.settings.flashAttention = *mode;
        return std::nullopt;
    }
    if (reader.hasInlineValue()) {
        return badValue(flag, *next, "on, off or auto");
    }
    parsed.settings.flashAttention = FlashAttention::On;
    parsed.notes.push_back("bare " + std::string(flag) +
                           " (older builds) read as -fa on; 0.7.0 needs on|off|auto");
    return std::nullopt;
}

std::optional<Error> applyFlag(Flag flag, std::string_view spelling, const std::string& value,
                               ParsedServerArgs& parsed) {
    ServerSettings& s = parsed.settings;
    switch (flag) {
    case Flag::Model:
        parsed.model = value;
        return std::nullopt;
    case Flag::Context:
        return readUint32(spelling, value, s.contextTokens);
    case Flag::Parallel:
        return readParallel(spelling, value, s.parallelSlots);
    case Flag::CacheTypeK:
        return readCacheType(spelling, value, s.cacheTypeK);
    case Flag::CacheTypeV:
        return readCacheType(spelling, value, s.cacheTypeV);
    case Flag::Batch:
        return readUint32(spelling, value, s.batchTokens);
    case Flag::Ubatch:
        return readUint32(spelling, value, s.ubatchTokens);
    case Flag::GpuLayers:
        return readGpuLayers(spelling, value, s.gpuLayers);
    case Flag::TensorSplit:
        return readTensorSplit(spelling, value, s.tensorSplit);
    case Flag::OverrideTensor:
        return readTensorOverrides(spelling, value, s.tensorOverrides);
    case Flag::CpuMoeLayers:
        return readUint32(spelling, value, s.cpuMoeLayers);
    case Flag::LoadMode:
        return readLoadMode(spelling, value, s.loadMode, parsed.notes);
    case Flag::CacheRam:
        return readInt32(spelling, value, s.cacheRamMiB);
    case Flag::ContextCheckpoints:
        return readInt32(spelling, value, s.contextCheckpoints);
    case Flag::Gpu:
    case Flag::IntegratedGpu:
        return readGpu(spelling, value, flag == Flag::IntegratedGpu, parsed.gpus);
    default:
        return std::nullopt;
    }
}

void applySwitch(Flag flag, std::string_view spelling, ParsedServerArgs& parsed) {
    ServerSettings& s = parsed.settings;
    const std::string legacy = std::string(spelling) + " (rejected by llama-server 0.7.0)";
    switch (flag) {
    case Flag::KvUnified:
    case Flag::NoKvUnified:
        s.kvUnified = flag == Flag::KvUnified;
        break;
    case Flag::SwaFull:
        s.swaFull = true;
        break;
    case Flag::KvOffload:
    case Flag::NoKvOffload:
        s.kvOffload = flag == Flag::KvOffload;
        break;
    case Flag::CpuMoe:
        s.cpuMoe = true;
        break;
    case Flag::Repack:
    case Flag::NoRepack:
        s.repack = flag == Flag::Repack;
        break;
    // llama.cpp common/arg.cpp (b10587, the last source with these aliases): --mmap -> mmap,
    // --no-mmap -> none, --mlock -> mlock, -dio -> dio, -ndio -> none; src/llama-model-loader.cpp
    // maps only auto/mmap/mmap+mlock to use_mmap, so mlock and dio load like none.
    case Flag::LegacyMmap:
        s.loadMode = LoadMode::Mmap;
        parsed.notes.push_back(legacy + " sized as -lm mmap");
        break;
    case Flag::LegacyNoMmap:
    case Flag::LegacyMlock:
    case Flag::LegacyDirectIo:
    case Flag::LegacyNoDirectIo:
        s.loadMode = LoadMode::None;
        parsed.notes.push_back(legacy + " sized as -lm none (weights are read into memory, not mapped)");
        break;
    default:
        break;
    }
}

} // namespace

Result<ParsedServerArgs> parseServerArgs(const std::vector<std::string>& args) {
    ParsedServerArgs parsed;
    ArgReader reader(args);
    while (!reader.atEnd()) {
        const std::string_view word = reader.peekWord();
        if (word.size() < 2 || word[0] != '-') {
            return makeError("args.unexpected-argument", "unexpected argument '" + std::string(word) +
                                                             "' (not a flag or a flag's value)");
        }
        const std::string_view flag = reader.nextFlag();
        const FlagSpelling* memory = findMemoryFlag(flag);
        std::optional<Error> error;
        if (memory == nullptr) {
            error = takeOtherFlag(reader, flag, parsed);
        } else if (memory->flag == Flag::FlashAttention) {
            error = takeFlashAttention(reader, flag, parsed);
        } else if (!memory->takesValue) {
            if (reader.hasInlineValue()) {
                error = makeError("args.bad-value", std::string(flag) + " takes no value");
            } else {
                applySwitch(memory->flag, flag, parsed);
            }
        } else {
            Result<std::string> value = reader.value(flag);
            error =
                value ? applyFlag(memory->flag, flag, *value, parsed) : std::optional<Error>(value.error());
        }
        if (error) {
            return *error;
        }
    }
    return parsed;
}

std::vector<std::string> toServerArgs(const ServerSettings& settings) {
    const ServerSettings defaults;
    std::vector<std::string> args;
    auto add = [&args](std::string_view flag, std::string value) {
        args.emplace_back(flag);
        args.push_back(std::move(value));
    };
    if (settings.contextTokens) {
        add("-c", std::to_string(*settings.contextTokens));
    }
    if (settings.parallelSlots) {
        add("-np", std::to_string(*settings.parallelSlots));
    }
    if (settings.kvUnified) {
        args.emplace_back(*settings.kvUnified ? "-kvu" : "-no-kvu");
    }
    if (settings.cacheTypeK != defaults.cacheTypeK) {
        add("-ctk", std::string(ggmlTypeName(settings.cacheTypeK)));
    }
    if (settings.cacheTypeV != defaults.cacheTypeV) {
        add("-ctv", std::string(ggmlTypeName(settings.cacheTypeV)));
    }
    if (settings.flashAttention != defaults.flashAttention) {
        add("-fa", std::string(flashAttentionName(settings.flashAttention)));
    }
    if (settings.batchTokens != defaults.batchTokens) {
        add("-b", std::to_string(settings.batchTokens));
    }
    if (settings.ubatchTokens != defaults.ubatchTokens) {
        add("-ub", std::to_string(settings.ubatchTokens));
    }
    if (settings.gpuLayers) {
        add("-ngl", settings.gpuLayers->text());
    }
    if (settings.swaFull) {
        args.emplace_back("--swa-full");
    }
    if (!settings.kvOffload) {
        args.emplace_back("-nkvo");
    }
    if (!settings.tensorSplit.empty()) {
        add("-ts", tensorSplitText(settings.tensorSplit));
    }
    for (const TensorOverride& override : settings.tensorOverrides) {
        add("-ot", override.pattern + "=" + override.bufferType);
    }
    if (settings.cpuMoe) {
        args.emplace_back("-cmoe");
    }
    if (settings.cpuMoeLayers != defaults.cpuMoeLayers) {
        add("-ncmoe", std::to_string(settings.cpuMoeLayers));
    }
    if (settings.loadMode != defaults.loadMode) {
        add("-lm", std::string(loadModeName(settings.loadMode)));
    }
    if (!settings.repack) {
        args.emplace_back("-nr");
    }
    if (settings.cacheRamMiB != defaults.cacheRamMiB) {
        add("-cram", std::to_string(settings.cacheRamMiB));
    }
    if (settings.contextCheckpoints != defaults.contextCheckpoints) {
        add("-ctxcp", std::to_string(settings.contextCheckpoints));
    }
    return args;
}

} // namespace llamafit
