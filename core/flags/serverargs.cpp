// llama-server command line <-> ServerSettings with the flag table; see serverargs.h.

#include "core/flags/serverargs.h"

#include "core/sizing/rpcdevices.h"

#include <algorithm>
#include <optional>

namespace llamafit {

namespace {

// Walks the argument list; knows whether the current flag came as "--flag=value".
class ArgReader {
  public:
    explicit ArgReader(const std::vector<std::string>& args) : m_args(args) {}

    bool atEnd() const { return m_next >= m_args.size(); }
    const std::string& peekWord() const { return m_args[m_next]; }

    // Takes the next word; splits it into flag name and an inline "=value" part.
    std::string_view nextFlag() {
        const std::string& word = m_args[m_next++];
        m_inlineValue.reset();
        const std::string_view name = flagName(word);
        if (name.size() < word.size()) {
            m_inlineValue = std::string_view(word).substr(name.size() + 1);
        }
        return name;
    }

    bool hasInlineValue() const { return m_inlineValue.has_value(); }

    // Takes the values `row` expects after the flag; the words taken go to `flag.words`.
    std::optional<Error> takeValues(const FlagRow& row, ParsedFlag& flag) {
        auto takeNext = [&] {
            flag.words.push_back(m_args[m_next]);
            flag.values.push_back(m_args[m_next++]);
        };
        switch (row.grammar) {
        case ValueGrammar::None:
            if (m_inlineValue) {
                return makeError("args.bad-value", flag.spelling + " takes no value", settingsOf(row),
                                 flag.spelling);
            }
            return std::nullopt;
        case ValueGrammar::Optional:
            if (m_inlineValue) {
                flag.values.emplace_back(*m_inlineValue);
            } else if (!atEnd() && row.acceptsValue != nullptr && row.acceptsValue(m_args[m_next])) {
                takeNext();
            }
            return std::nullopt;
        case ValueGrammar::One:
        case ValueGrammar::Two:
            break;
        }
        const int count = row.grammar == ValueGrammar::Two ? 2 : 1;
        for (int i = 0; i < count; ++i) {
            if (i == 0 && m_inlineValue) {
                flag.values.emplace_back(*m_inlineValue);
            } else if (atEnd()) {
                return makeError("args.missing-value", flag.spelling + " needs a value", settingsOf(row),
                                 flag.spelling);
            } else {
                takeNext();
            }
        }
        return std::nullopt;
    }

    static std::vector<Setting> settingsOf(const FlagRow& row) {
        return row.setting ? std::vector<Setting>{*row.setting} : std::vector<Setting>{};
    }

  private:
    const std::vector<std::string>& m_args;
    std::size_t m_next = 0;
    std::optional<std::string_view> m_inlineValue;
};

} // namespace

std::string ParsedFlag::text() const {
    std::string text = spelling;
    for (const std::string& value : values) {
        text += " " + value;
    }
    return text;
}

Result<ParsedServerArgs> parseServerArgs(const std::vector<std::string>& args) {
    ParsedServerArgs parsed;
    ArgReader reader(args);
    while (!reader.atEnd()) {
        const std::string& word = reader.peekWord();
        if (word.size() < 2 || word[0] != '-') {
            return makeError("args.unexpected-argument",
                             "unexpected argument '" + word + "' (not a flag or a flag's value)");
        }
        ParsedFlag flag;
        flag.words.push_back(word);
        flag.spelling = reader.nextFlag();
        const FlagRow* row = findFlag(flag.spelling);
        if (row == nullptr) {
            return makeError("args.unknown-flag", "unknown llama-server flag " + flag.spelling, {},
                             flag.spelling);
        }
        if (std::optional<Error> error = reader.takeValues(*row, flag)) {
            return *error;
        }
        if (row->read != nullptr) {
            if (std::optional<Error> error = row->read(flag.spelling, flag.values, parsed)) {
                error->flag = flag.spelling;
                error->settings = ArgReader::settingsOf(*row);
                return *error;
            }
        }
        flag.kind = row->kind;
        flag.id = row->id;
        flag.setting = row->setting;
        flag.reason = row->reason;
        if (row->kind == FlagKind::NotModelled) {
            parsed.unmodelledFlags.push_back(flag.text() + ": " + std::string(row->reason));
        } else if (row->kind == FlagKind::PassThrough ||
                   (row->kind == FlagKind::Launcher && row->id != FlagId::Model)) {
            parsed.ignoredFlags.push_back(flag.text());
        }
        parsed.flags.push_back(std::move(flag));
    }
    // llama.cpp's device order, the one -ts indexes: the --rpc servers first (rpcdevices.h).
    parsed.gpus = inLlamaDeviceOrder(parsed.settings, std::move(parsed.gpus));
    for (const GpuDevice& gpu : parsed.gpus) {
        if (gpu.backend == Backend::Rpc &&
            std::find(parsed.settings.rpcServers.begin(), parsed.settings.rpcServers.end(),
                      rpcEndpointOf(gpu.name).value_or("")) == parsed.settings.rpcServers.end()) {
            return makeError("args.bad-value",
                             "--gpu rpc:" + rpcEndpointOf(gpu.name).value_or("") +
                                 " describes an RPC server that --rpc does not name",
                             {Setting::RpcServers}, "--gpu");
        }
    }
    return parsed;
}

std::vector<std::string> toServerArgs(const ServerSettings& settings) {
    std::vector<std::string> args;
    for (const FlagRow& row : flagTable()) {
        if (row.write == nullptr) {
            continue;
        }
        for (FlagValues& values : row.write(settings)) {
            args.emplace_back(row.canonicalSpelling());
            args.insert(args.end(), std::make_move_iterator(values.begin()),
                        std::make_move_iterator(values.end()));
        }
    }
    return args;
}

std::vector<std::string> passThroughWords(const ParsedServerArgs& parsed) {
    std::vector<std::string> words;
    for (const ParsedFlag& flag : parsed.flags) {
        const bool passed = flag.kind == FlagKind::PassThrough || flag.kind == FlagKind::NotModelled ||
                            (flag.kind == FlagKind::Launcher && flag.id != FlagId::Model);
        if (passed) {
            words.insert(words.end(), flag.words.begin(), flag.words.end());
        }
    }
    return words;
}

void copySetting(Setting setting, const ServerSettings& from, ServerSettings& to) {
    switch (setting) {
    case Setting::Context:
        to.contextTokens = from.contextTokens;
        return;
    case Setting::Parallel:
        to.parallelSlots = from.parallelSlots;
        return;
    case Setting::KvUnified:
        to.kvUnified = from.kvUnified;
        return;
    case Setting::CacheTypeK:
        to.cacheTypeK = from.cacheTypeK;
        return;
    case Setting::CacheTypeV:
        to.cacheTypeV = from.cacheTypeV;
        return;
    case Setting::FlashAttention:
        to.flashAttention = from.flashAttention;
        return;
    case Setting::Batch:
        to.batchTokens = from.batchTokens;
        return;
    case Setting::Ubatch:
        to.ubatchTokens = from.ubatchTokens;
        return;
    case Setting::GpuLayers:
        to.gpuLayers = from.gpuLayers;
        return;
    case Setting::SwaFull:
        to.swaFull = from.swaFull;
        return;
    case Setting::KvOffload:
        to.kvOffload = from.kvOffload;
        return;
    case Setting::TensorSplit:
        to.tensorSplit = from.tensorSplit;
        return;
    case Setting::TensorOverrides:
        to.tensorOverrides = from.tensorOverrides;
        return;
    case Setting::CpuMoe:
        to.cpuMoe = from.cpuMoe;
        return;
    case Setting::CpuMoeLayers:
        to.cpuMoeLayers = from.cpuMoeLayers;
        return;
    case Setting::LoadMode:
        to.loadMode = from.loadMode;
        return;
    case Setting::Repack:
        to.repack = from.repack;
        return;
    case Setting::CacheRam:
        to.cacheRamMiB = from.cacheRamMiB;
        return;
    case Setting::ContextCheckpoints:
        to.contextCheckpoints = from.contextCheckpoints;
        return;
    case Setting::SpeculativeType:
        to.speculative.types = from.speculative.types;
        return;
    case Setting::SpeculativeDraftMax:
        to.speculative.draftMax = from.speculative.draftMax;
        return;
    case Setting::SpeculativeDraftUbatch:
        to.speculative.draftUbatch = from.speculative.draftUbatch;
        return;
    case Setting::LoraAdapters:
        to.loraAdapters = from.loraAdapters;
        return;
    case Setting::DraftModel:
        to.draftModel.path = from.draftModel.path;
        return;
    case Setting::DraftGpuLayers:
        to.draftModel.gpuLayers = from.draftModel.gpuLayers;
        return;
    case Setting::DraftCacheTypeK:
        to.draftModel.cacheTypeK = from.draftModel.cacheTypeK;
        return;
    case Setting::DraftCacheTypeV:
        to.draftModel.cacheTypeV = from.draftModel.cacheTypeV;
        return;
    case Setting::Projector:
        to.projector.path = from.projector.path;
        return;
    case Setting::ProjectorOffload:
        to.projector.offload = from.projector.offload;
        return;
    case Setting::ImageMinTokens:
        to.projector.imageMinTokens = from.projector.imageMinTokens;
        return;
    case Setting::ImageMaxTokens:
        to.projector.imageMaxTokens = from.projector.imageMaxTokens;
        return;
    case Setting::RpcServers:
        to.rpcServers = from.rpcServers;
        return;
    }
}

} // namespace llamafit
