// The flag table; see flagtable.h. Spellings and value grammars come from `llama-server
// --help` of the Debian build b11669 (llama.cpp common/arg.cpp builds that help from the same
// table its parser uses); the older spellings from the llama.cpp sources that still had them.

#include "core/flags/flagtable.h"

#include "core/flags/adapterflags.h"
#include "core/flags/draftflags.h"
#include "core/flags/flagvalues.h"
#include "core/flags/projectorflags.h"
#include "core/flags/settingflags.h"
#include "core/flags/speculativeflags.h"

#include <algorithm>
#include <array>

namespace llamafit {

namespace {

using G = ValueGrammar;
namespace sf = settingflags;
namespace spec = speculativeflags;
namespace draft = draftflags;
namespace lora = adapterflags;
namespace mmproj = projectorflags;

constexpr FlagRow memory(std::string_view spellings, ValueGrammar grammar, Setting setting, FlagReader read,
                         FlagWriter write = nullptr) {
    return {spellings, grammar, FlagKind::Memory, setting, read, write, nullptr, {}, FlagId::Unnamed};
}

constexpr FlagRow launcher(std::string_view spellings, ValueGrammar grammar, FlagId id,
                           FlagReader read = nullptr) {
    return {spellings, grammar, FlagKind::Launcher, std::nullopt, read, nullptr, nullptr, {}, id};
}

constexpr FlagRow llamafitOwn(std::string_view spellings, FlagId id, FlagReader read) {
    return {spellings, G::One, FlagKind::LlamaFit, std::nullopt, read, nullptr, nullptr, {}, id};
}

constexpr FlagRow passes(std::string_view spellings, ValueGrammar grammar) {
    return {spellings, grammar, FlagKind::PassThrough, std::nullopt, nullptr, nullptr,
            nullptr,   {},      FlagId::Unnamed};
}

// A pass-through flag that LlamaFit also reads (by its id), such as the fit flags.
// A pass-through flag whose value llama-server reads with std::stoi: a value it cannot read
// ends llama-server at once, so it is refused here first.
std::optional<Error> checkIntegerValue(std::string_view spelling, const FlagValues& values,
                                       ParsedServerArgs&) {
    return values.empty() ? std::nullopt : checkStoiInteger(spelling, values.front());
}

constexpr FlagRow passesInteger(std::string_view spellings) {
    return {spellings, G::One, FlagKind::PassThrough, std::nullopt, checkIntegerValue, nullptr,
            nullptr,   {},     FlagId::Unnamed};
}

constexpr FlagRow passesNamed(std::string_view spellings, ValueGrammar grammar, FlagId id) {
    return {spellings, grammar, FlagKind::PassThrough, std::nullopt, nullptr, nullptr, nullptr, {}, id};
}

constexpr FlagRow notModelled(std::string_view spellings, ValueGrammar grammar, std::string_view reason) {
    return {spellings, grammar, FlagKind::NotModelled, std::nullopt, nullptr, nullptr,
            nullptr,   reason,  FlagId::Unnamed};
}

// The draft model itself is modelled (-md, -ngld, -ctkd, -ctvd); its placement flags are not.
constexpr std::string_view kDraftModel =
    "changes where the draft model's weights go; the draft is sized with llama.cpp's default placement";
constexpr std::string_view kDownloadsModel = "selects a model to download; pass -m with a file or card id";
constexpr std::string_view kRemoteModel = "the model is not fetched; pass -m with a file or card id";
constexpr std::string_view kPromptCache = "the prompt cache grows host memory at run time";
constexpr std::string_view kAdapter = "adapters and control vectors add tensors";
constexpr std::string_view kProjector =
    "a projector fetched from a URL or placed on a chosen device is not estimated (--mmproj FILE is)";
constexpr std::string_view kProjectorBatch =
    "sizes the image batch of an encode at run time; the warm-up buffer is sized without it";
// The first flags of the next issues: parsed with their values kept, not yet modelled.

// clang-format off
constexpr auto kRows = std::to_array<FlagRow>({
    // Memory flags, in the order toServerArgs writes them.
    launcher("-m --model", G::One, FlagId::Model, sf::readModel),
    memory("-c --ctx-size", G::One, Setting::Context, sf::readContext, sf::writeContext),
    memory("-np --parallel", G::One, Setting::Parallel, sf::readParallel, sf::writeParallel),
    memory("-kvu --kv-unified", G::None, Setting::KvUnified, sf::readKvUnified, sf::writeKvUnified),
    memory("-no-kvu --no-kv-unified", G::None, Setting::KvUnified, sf::readNoKvUnified, sf::writeNoKvUnified),
    memory("-ctk --cache-type-k", G::One, Setting::CacheTypeK, sf::readCacheTypeK, sf::writeCacheTypeK),
    memory("-ctv --cache-type-v", G::One, Setting::CacheTypeV, sf::readCacheTypeV, sf::writeCacheTypeV),
    {"-fa --flash-attn", G::Optional, FlagKind::Memory, Setting::FlashAttention, sf::readFlashAttention,
     sf::writeFlashAttention, sf::isFlashAttentionValue, {}, FlagId::Unnamed},
    memory("-b --batch-size", G::One, Setting::Batch, sf::readBatch, sf::writeBatch),
    memory("-ub --ubatch-size", G::One, Setting::Ubatch, sf::readUbatch, sf::writeUbatch),
    memory("-ngl --gpu-layers --n-gpu-layers", G::One, Setting::GpuLayers, sf::readGpuLayers, sf::writeGpuLayers),
    memory("--swa-full", G::None, Setting::SwaFull, sf::readSwaFull, sf::writeSwaFull),
    memory("-kvo --kv-offload", G::None, Setting::KvOffload, sf::readKvOffload),
    memory("-nkvo --no-kv-offload", G::None, Setting::KvOffload, sf::readNoKvOffload, sf::writeNoKvOffload),
    memory("-ts --tensor-split", G::One, Setting::TensorSplit, sf::readTensorSplit, sf::writeTensorSplit),
    // RPC servers are devices before the local GPUs (core/sizing/rpcdevices.h); their free
    // memory comes with --gpu rpc:HOST:PORT=MiB.
    memory("--rpc", G::One, Setting::RpcServers, sf::readRpcServers, sf::writeRpcServers),
    // Speculative decoding (core/sizing/speculative.h): draft-mtp adds the MTP draft context.
    memory("--spec-type", G::One, Setting::SpeculativeType, spec::readSpecType, spec::writeSpecType),
    memory("--spec-draft-n-max", G::One, Setting::SpeculativeDraftMax, spec::readDraftMax, spec::writeDraftMax),
    memory("--spec-draft-n-ubatch", G::One, Setting::SpeculativeDraftUbatch, spec::readDraftUbatch,
           spec::writeDraftUbatch),
    // LoRA adapters (core/sizing/lorabuffers.h): --lora-scaled writes them all back, scales included.
    memory("--lora", G::One, Setting::LoraAdapters, lora::readLora),
    memory("--lora-scaled", G::One, Setting::LoraAdapters, lora::readLoraScaled, lora::writeLoraScaled),
    // The vision projector (core/sizing/projectorbuffers.h): weights and warm-up compute buffer.
    memory("-mm --mmproj", G::One, Setting::Projector, mmproj::readProjector, mmproj::writeProjector),
    memory("--mmproj-offload", G::None, Setting::ProjectorOffload, mmproj::readOffload),
    memory("--no-mmproj-offload", G::None, Setting::ProjectorOffload, mmproj::readNoOffload, mmproj::writeNoOffload),
    memory("--image-min-tokens", G::One, Setting::ImageMinTokens, mmproj::readImageMinTokens,
           mmproj::writeImageMinTokens),
    memory("--image-max-tokens", G::One, Setting::ImageMaxTokens, mmproj::readImageMaxTokens,
           mmproj::writeImageMaxTokens),
    memory("-ot --override-tensor", G::One, Setting::TensorOverrides, sf::readOverrideTensor, sf::writeOverrideTensor),
    memory("-cmoe --cpu-moe", G::None, Setting::CpuMoe, sf::readCpuMoe, sf::writeCpuMoe),
    memory("-ncmoe --n-cpu-moe", G::One, Setting::CpuMoeLayers, sf::readCpuMoeLayers, sf::writeCpuMoeLayers),
    memory("-lm --load-mode", G::One, Setting::LoadMode, sf::readLoadMode, sf::writeLoadMode),
    memory("--repack", G::None, Setting::Repack, sf::readRepack),
    memory("-nr --no-repack", G::None, Setting::Repack, sf::readNoRepack, sf::writeNoRepack),
    memory("-cram --cache-ram", G::One, Setting::CacheRam, sf::readCacheRam, sf::writeCacheRam),
    memory("-ctxcp --ctx-checkpoints --swa-checkpoints", G::One, Setting::ContextCheckpoints,
           sf::readContextCheckpoints, sf::writeContextCheckpoints),
    // Spellings older builds accepted and 0.7.0 rejects ("error: invalid argument: --no-mmap"),
    // read as the load mode they meant; --no-mmap is also how an older build is told -lm none.
    memory("--mmap", G::None, Setting::LoadMode, sf::readLegacyMmap),
    {"--no-mmap", G::None, FlagKind::Memory, Setting::LoadMode, sf::readLegacyNoMmap, nullptr, nullptr, {},
     FlagId::NoMmap},
    memory("--mlock", G::None, Setting::LoadMode, sf::readLegacyNoMmap),
    memory("-dio --direct-io", G::None, Setting::LoadMode, sf::readLegacyNoMmap),
    memory("-ndio --no-direct-io", G::None, Setting::LoadMode, sf::readLegacyNoMmap),
    // LlamaFit's own: the GPUs to size for (serverargs.h), never passed to llama-server.
    llamafitOwn("--gpu", FlagId::Gpu, sf::readGpu),
    llamafitOwn("--gpu-igpu", FlagId::IntegratedGpu, sf::readIntegratedGpu),
    // Everything else llama-server 0.7.0 lists, in its --help order.
    passes("-h --help --usage", G::None),
    {"--version", G::None, FlagKind::PassThrough, std::nullopt, nullptr, nullptr, nullptr, {}, FlagId::Version},
    passes("-cl --cache-list", G::None),
    passes("--completion-bash", G::None),
    passesInteger("-t --threads"),
    passesInteger("-tb --threads-batch"),
    passes("-C --cpu-mask", G::One),
    passes("-Cr --cpu-range", G::One),
    passes("--cpu-strict", G::One),
    passes("--prio", G::One),
    passes("--poll", G::One),
    passes("-Cb --cpu-mask-batch", G::One),
    passes("-Crb --cpu-range-batch", G::One),
    passes("--cpu-strict-batch", G::One),
    passes("--prio-batch", G::One),
    passes("--poll-batch", G::One),
    passesInteger("-n --predict --n-predict"),
    passesInteger("--keep"),
    passes("--perf --no-perf", G::None),
    passes("-e --escape --no-escape", G::None),
    passes("--rope-scaling", G::One),
    passes("--rope-scale", G::One),
    passes("--rope-freq-base", G::One),
    passes("--rope-freq-scale", G::One),
    passes("--yarn-orig-ctx", G::One),
    passes("--yarn-ext-factor", G::One),
    passes("--yarn-attn-factor", G::One),
    passes("--yarn-beta-slow", G::One),
    passes("--yarn-beta-fast", G::One),
    notModelled("--no-host", G::None, "bypassing host buffers changes which buffer types hold weights"),
    passes("-dt --defrag-thold", G::One),
    notModelled("-lzm --lazy-mode", G::One, "lazy reading changes which per-layer embedding tensors stay resident"),
    passes("--numa", G::One),
    notModelled("-dev --device", G::One, "device selection changes where layers go (LlamaFit sizes the GPUs given with --gpu)"),
    passes("--list-devices", G::None),
    notModelled("--moe-cache-mib", G::One, "adds a GPU cache for the MoE experts kept on the CPU"),
    notModelled("-ncffn --n-cpu-ffn", G::One, "keeps the dense FFN weights of the first N layers on the CPU"),
    notModelled("-sm --split-mode", G::One, "the split mode changes how weights and KV are spread over GPUs (layer split is modelled)"),
    notModelled("-mg --main-gpu", G::One, "the main GPU changes placement with -sm none/row"),
    passesNamed("-fit --fit", G::One, FlagId::Fit),
    passesNamed("-fitt --fit-target", G::One, FlagId::FitTarget),
    passesNamed("-fitc --fit-ctx", G::One, FlagId::FitContext),
    passes("--check-tensors", G::None),
    notModelled("--override-kv", G::One, "overriding metadata can change the model shape"),
    notModelled("--op-offload --no-op-offload", G::None, "op offload changes the GPU compute buffer when weights stay on the CPU"),
    notModelled("--control-vector", G::One, kAdapter),
    notModelled("--control-vector-scaled", G::One, kAdapter),
    passes("--control-vector-layer-range", G::Two),
    notModelled("-mu --model-url", G::One, kRemoteModel),
    notModelled("-dr --docker-repo", G::One, kRemoteModel),
    notModelled("-hf -hfr --hf-repo", G::One, kRemoteModel),
    notModelled("-hff --hf-file", G::One, kRemoteModel),
    passes("-hft --hf-token", G::One),
    passes("--log-disable", G::None),
    passes("--log-file", G::One),
    passes("--log-jsonl --no-log-jsonl", G::None),
    passes("--log-colors", G::One),
    passes("-v --verbose --log-verbose", G::None),
    passes("--offline", G::None),
    launcher("-lv --verbosity --log-verbosity", G::One, FlagId::LogVerbosity),
    passes("--log-prefix --no-log-prefix", G::None),
    passes("--log-timestamps --no-log-timestamps", G::None),
    // The draft model's K/V types (core/sizing/draftmodel.h): f16 unless given, whatever -ctk says.
    memory("--spec-draft-type-k -ctkd --cache-type-k-draft", G::One, Setting::DraftCacheTypeK,
           draft::readDraftCacheTypeK, draft::writeDraftCacheTypeK),
    memory("--spec-draft-type-v -ctvd --cache-type-v-draft", G::One, Setting::DraftCacheTypeV,
           draft::readDraftCacheTypeV, draft::writeDraftCacheTypeV),
    passes("--samplers", G::One),
    passes("-s --seed", G::One),
    passes("--sampler-seq --sampling-seq", G::One),
    passes("--ignore-eos", G::None),
    passes("--temp --temperature", G::One),
    passes("--top-k", G::One),
    passes("--top-p", G::One),
    passes("--min-p", G::One),
    passes("--top-nsigma --top-n-sigma", G::One),
    passes("--xtc-probability", G::One),
    passes("--xtc-threshold", G::One),
    passes("--typical --typical-p", G::One),
    passes("--repeat-last-n", G::One),
    passes("--repeat-penalty", G::One),
    passes("--presence-penalty", G::One),
    passes("--frequency-penalty", G::One),
    passes("--dry-multiplier", G::One),
    passes("--dry-base", G::One),
    passes("--dry-allowed-length", G::One),
    passes("--dry-penalty-last-n", G::One),
    passes("--dry-sequence-breaker", G::One),
    passes("--adaptive-target", G::One),
    passes("--adaptive-decay", G::One),
    passes("--dynatemp-range", G::One),
    passes("--dynatemp-exp", G::One),
    passes("--mirostat", G::One),
    passes("--mirostat-lr", G::One),
    passes("--mirostat-ent", G::One),
    passes("-l --logit-bias", G::One),
    passes("--grammar", G::One),
    passes("--grammar-file", G::One),
    passes("-j --json-schema", G::One),
    passes("-jf --json-schema-file", G::One),
    passes("-bs --backend-sampling", G::None),
    notModelled("--spec-draft-hf -hfd -hfrd --hf-repo-draft", G::One, "the draft model is not fetched; pass -md with a file"),
    passesInteger("--spec-draft-threads -td --threads-draft"),
    passesInteger("--spec-draft-threads-batch -tbd --threads-batch-draft"),
    passes("--spec-draft-cpu-mask -Cd --cpu-mask-draft", G::One),
    passes("--spec-draft-cpu-range -Crd --cpu-range-draft", G::One),
    passes("--spec-draft-cpu-strict --cpu-strict-draft", G::One),
    passes("--spec-draft-prio --prio-draft", G::One),
    passes("--spec-draft-poll --poll-draft", G::One),
    passes("--spec-draft-cpu-mask-batch -Cbd --cpu-mask-batch-draft", G::One),
    passes("--spec-draft-cpu-strict-batch --cpu-strict-batch-draft", G::One),
    passes("--spec-draft-prio-batch --prio-batch-draft", G::One),
    passes("--spec-draft-poll-batch --poll-batch-draft", G::One),
    notModelled("--spec-draft-override-tensor -otd --override-tensor-draft", G::One, kDraftModel),
    notModelled("--spec-draft-cpu-moe -cmoed --cpu-moe-draft", G::None, kDraftModel),
    notModelled("--spec-draft-n-cpu-moe --spec-draft-ncmoe -ncmoed --n-cpu-moe-draft", G::One, kDraftModel),
    passes("--spec-draft-n-min", G::One),
    passes("--spec-synth-len", G::One),
    passes("--spec-synth-rates", G::One),
    passes("--spec-draft-p-split --draft-p-split", G::One),
    passes("--spec-draft-p-min --draft-p-min", G::One),
    passes("--spec-draft-backend-sampling --no-spec-draft-backend-sampling", G::None),
    passes("--spec-draft-sampling", G::One),
    notModelled("--spec-draft-device -devd --device-draft", G::One, kDraftModel),
    memory("--spec-draft-ngl -ngld --gpu-layers-draft --n-gpu-layers-draft", G::One, Setting::DraftGpuLayers,
           draft::readDraftGpuLayers, draft::writeDraftGpuLayers),
    memory("--spec-draft-model -md --model-draft", G::One, Setting::DraftModel, draft::readDraftModel,
           draft::writeDraftModel),
    notModelled("-cd --ctx-size-draft", G::One,
                "builds before 0.7.0 size the draft context by it; 0.7.0 gives the draft the main context's size"),
    passes("--spec-ngram-mod-n-min", G::One),
    passes("--spec-ngram-mod-n-max", G::One),
    passes("--spec-ngram-mod-n-match", G::One),
    passes("--spec-ngram-simple-size-n", G::One),
    passes("--spec-ngram-simple-size-m", G::One),
    passes("--spec-ngram-simple-min-hits", G::One),
    passes("--spec-ngram-map-k-size-n", G::One),
    passes("--spec-ngram-map-k-size-m", G::One),
    passes("--spec-ngram-map-k-min-hits", G::One),
    passes("--spec-ngram-map-k4v-size-n", G::One),
    passes("--spec-ngram-map-k4v-size-m", G::One),
    passes("--spec-ngram-map-k4v-min-hits", G::One),
    passes("--draft --draft-n --draft-max", G::One),
    passes("--draft-min --draft-n-min", G::One),
    passes("--spec-ngram-size-n", G::One),
    passes("--spec-ngram-size-m", G::One),
    passes("--spec-ngram-min-hits", G::One),
    passes("-lcs --lookup-cache-static", G::One),
    passes("-lcd --lookup-cache-dynamic", G::One),
    notModelled("--kv-unified-per-slot", G::One, "sizes the KV pool to n_parallel * N when -c is not given"),
    passes("-cms --checkpoint-min-step", G::One),
    notModelled("--cache-idle-slots --no-cache-idle-slots", G::None, kPromptCache),
    passes("--context-shift --no-context-shift", G::None),
    passes("-r --reverse-prompt", G::One),
    passes("-sp --special", G::None),
    passes("--warmup --no-warmup", G::None),
    passes("--spm-infill", G::None),
    notModelled("--pooling", G::One, "pooling changes the output buffer"),
    passes("-cb --cont-batching -nocb --no-cont-batching", G::None),
    notModelled("-mmu --mmproj-url", G::One, kProjector),
    passes("--mmproj-auto --no-mmproj --no-mmproj-auto", G::None),
    notModelled("-mmdev --mmproj-device", G::One, kProjector),
    notModelled("--mtmd-batch-max-tokens", G::One, kProjectorBatch),
    passes("--video-fps", G::One),
    passes("--video-timestamp-interval", G::One),
    passes("--video-ffmpeg-dir", G::One),
    passes("-a --alias", G::One),
    passes("--tags", G::One),
    passes("--embd-normalize", G::One),
    launcher("--host", G::One, FlagId::Host),
    launcher("--port", G::One, FlagId::Port),
    passes("--reuse-port", G::None),
    passes("--path", G::One),
    passes("--cors-origins", G::One),
    passes("--cors-methods", G::One),
    passes("--cors-headers", G::One),
    passes("--cors-credentials --no-cors-credentials", G::None),
    passes("--api-prefix", G::One),
    passes("--ui-config --webui-config", G::One),
    passes("--ui-config-file --webui-config-file", G::One),
    passes("--ui-mcp-proxy --webui-mcp-proxy --no-ui-mcp-proxy --no-webui-mcp-proxy", G::None),
    passes("--tools", G::One),
    passes("--tools-runtime", G::One),
    passes("--mcp-servers-config", G::One),
    passes("--mcp-servers-json", G::One),
    passes("-ag --agent -no-ag --no-agent", G::None),
    passes("--ui --webui --no-ui --no-webui", G::None),
    notModelled("--embedding --embeddings", G::None, "embedding mode changes the output buffer and pooling"),
    notModelled("--rerank --reranking", G::None, "reranking changes the output buffer and pooling"),
    passesNamed("--api-key", G::One, FlagId::ApiKey),
    passesNamed("--api-key-file", G::One, FlagId::ApiKeyFile),
    passes("--ssl-key-file", G::One),
    passes("--ssl-cert-file", G::One),
    passes("--chat-template-kwargs", G::One),
    passesInteger("-to --timeout"),
    passes("--sse-ping-interval", G::One),
    passesInteger("--threads-http"),
    notModelled("--cache-prompt --no-cache-prompt", G::None, kPromptCache),
    passes("--cache-reuse", G::One),
    launcher("--metrics", G::None, FlagId::Metrics),
    passes("--props", G::None),
    passes("--slots --no-slots", G::None),
    passes("--slot-save-path", G::One),
    passes("--media-path", G::One),
    passes("--models-dir", G::One),
    passes("--models-preset", G::One),
    passes("--models-max", G::One),
    passes("--models-autoload --no-models-autoload", G::None),
    passes("--jinja --no-jinja", G::None),
    passes("--reasoning-format", G::One),
    passes("-rea --reasoning", G::One),
    passes("--reasoning-effort", G::One),
    passes("--reasoning-budget", G::One),
    passes("--reasoning-budget-message", G::One),
    passes("--reasoning-preserve --no-reasoning-preserve", G::None),
    passes("--chat-template", G::One),
    passes("--chat-template-file", G::One),
    passes("--skip-chat-parsing --no-skip-chat-parsing", G::None),
    passes("--prefill-assistant --no-prefill-assistant", G::None),
    passes("-sps --slot-prompt-similarity", G::One),
    passes("--lora-init-without-apply", G::None),
    passes("--sleep-idle-seconds", G::One),
    passes("--log-prompts-dir", G::One),
    notModelled("--embd-gemma-default", G::None, kDownloadsModel),
    notModelled("--fim-qwen-1.5b-default", G::None, kDownloadsModel),
    notModelled("--fim-qwen-3b-default", G::None, kDownloadsModel),
    notModelled("--fim-qwen-7b-default", G::None, kDownloadsModel),
    notModelled("--fim-qwen-7b-spec", G::None, kDownloadsModel),
    notModelled("--fim-qwen-14b-spec", G::None, kDownloadsModel),
    notModelled("--fim-qwen-30b-default", G::None, kDownloadsModel),
    notModelled("--gpt-oss-20b-default", G::None, kDownloadsModel),
    notModelled("--gpt-oss-120b-default", G::None, kDownloadsModel),
    notModelled("--vision-gemma-4b-default", G::None, kDownloadsModel),
    notModelled("--vision-gemma-12b-default", G::None, kDownloadsModel),
    notModelled("--spec-default", G::None, "speculative decoding adds a draft model"),
});
// clang-format on

} // namespace

bool FlagRow::hasSpelling(std::string_view spelling) const {
    const std::vector<std::string_view> all = allSpellings();
    return std::find(all.begin(), all.end(), spelling) != all.end();
}

std::vector<std::string_view> FlagRow::allSpellings() const {
    std::vector<std::string_view> all;
    std::string_view rest = spellings;
    while (!rest.empty()) {
        const std::size_t end = rest.find(' ');
        all.push_back(rest.substr(0, end));
        rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
    }
    return all;
}

std::span<const FlagRow> flagTable() {
    return kRows;
}

const FlagRow* findFlag(std::string_view spelling) {
    const auto it = std::find_if(kRows.begin(), kRows.end(),
                                 [&](const FlagRow& row) { return row.hasSpelling(spelling); });
    return it == kRows.end() ? nullptr : &*it;
}

const FlagRow& flagRow(FlagId id) {
    const auto it =
        std::find_if(kRows.begin(), kRows.end(), [&](const FlagRow& row) { return row.id == id; });
    return *it; // every named id has a row (flagtable_test checks)
}

const FlagRow& flagRowOf(Setting setting) {
    const auto it = std::find_if(kRows.begin(), kRows.end(), [&](const FlagRow& row) {
        return row.setting == setting && row.write != nullptr;
    });
    return *it; // every Setting has a written row (flagtable_test checks)
}

std::string_view flagName(std::string_view word) {
    if (word.size() > 1 && word.front() == '-') {
        return word.substr(0, word.find('='));
    }
    return word;
}

} // namespace llamafit
