// The "extra flags" field's words and how they are sorted; see extraflags.h.
#include "ui/settings/extraflags.h"

#include "core/sizing/serverargs.h"
#include "core/sizing/serverflagtable.h"

#include <cstddef>

namespace llamafit {

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

// A setting with every field away from llama-server's default, so that applying one flag
// group on top of it shows which fields that group names, even when it names a default value.
ServerSettings sentinelSettings() {
    ServerSettings s;
    s.contextTokens = 12288;
    s.parallelSlots = 3;
    s.kvUnified = false;
    s.cacheTypeK = GgmlType::Q5_1;
    s.cacheTypeV = GgmlType::Q5_1;
    s.flashAttention = FlashAttention::On;
    s.batchTokens = 1000;
    s.ubatchTokens = 100;
    s.gpuLayers = GpuLayers::count(7);
    s.swaFull = true;
    s.kvOffload = false;
    s.tensorSplit = {1.0, 2.0};
    s.tensorOverrides = {{"llamafit-sentinel", "CPU"}};
    s.cpuMoe = true;
    s.cpuMoeLayers = 3;
    s.loadMode = LoadMode::None;
    s.repack = false;
    s.cacheRamMiB = 1;
    s.contextCheckpoints = 1;
    return s;
}

// Copies into `target` each field the group set: a field it set differs from the default when
// parsed alone or from the sentinel when parsed on top of it.
void mergeNamedFields(ServerSettings& target, const ServerSettings& alone, const ServerSettings& onSentinel) {
    const ServerSettings defaults;
    const ServerSettings sentinel = sentinelSettings();
    auto merge = [&](auto member) {
        if (alone.*member != defaults.*member || onSentinel.*member != sentinel.*member) {
            target.*member = alone.*member;
        }
    };
    merge(&ServerSettings::contextTokens);
    merge(&ServerSettings::parallelSlots);
    merge(&ServerSettings::kvUnified);
    merge(&ServerSettings::cacheTypeK);
    merge(&ServerSettings::cacheTypeV);
    merge(&ServerSettings::flashAttention);
    merge(&ServerSettings::batchTokens);
    merge(&ServerSettings::ubatchTokens);
    merge(&ServerSettings::gpuLayers);
    merge(&ServerSettings::swaFull);
    merge(&ServerSettings::kvOffload);
    merge(&ServerSettings::tensorSplit);
    merge(&ServerSettings::tensorOverrides);
    merge(&ServerSettings::cpuMoe);
    merge(&ServerSettings::cpuMoeLayers);
    merge(&ServerSettings::loadMode);
    merge(&ServerSettings::repack);
    merge(&ServerSettings::cacheRamMiB);
    merge(&ServerSettings::contextCheckpoints);
}

// How many words the flag at words[i] takes with its values.
std::size_t groupLength(const std::vector<std::string>& words, std::size_t i) {
    const std::string& word = words[i];
    if (word.starts_with("--") && word.find('=') != std::string::npos) {
        return 1;
    }
    if (const ServerFlagInfo* info = findServerFlag(word)) {
        return 1 + static_cast<std::size_t>(info->valueCount);
    }
    // A flag read into ServerSettings: it takes a value if it fails without one; a flag whose
    // value is optional (the old bare -fa) takes the next word when that word reads as its value.
    const Result<ParsedServerArgs> alone = parseServerArgs({word});
    if (!alone.ok()) {
        return 2;
    }
    const bool nextIsValue =
        i + 1 < words.size() && !words[i + 1].starts_with('-') && parseServerArgs({word, words[i + 1]}).ok();
    return nextIsValue ? 2 : 1;
}

} // namespace

Result<std::vector<std::string>> splitShellWords(std::string_view text) {
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (inWord) {
                words.push_back(std::move(word));
                word.clear();
                inWord = false;
            }
            continue;
        }
        inWord = true;
        if (c == '\\') {
            if (++i == text.size()) {
                return makeError("flags.trailing-backslash", "a backslash at the end escapes nothing");
            }
            word += text[i];
        } else if (c == '\'' || c == '"') {
            // As in sh: single quotes take everything literally; inside double quotes a
            // backslash still escapes a double quote or a backslash.
            std::size_t j = i + 1;
            for (; j < text.size() && text[j] != c; ++j) {
                const bool escape = c == '"' && text[j] == '\\' && j + 1 < text.size() &&
                                    (text[j + 1] == '"' || text[j + 1] == '\\');
                word += text[escape ? ++j : j];
            }
            if (j == text.size()) {
                return makeError("flags.unterminated-quote", std::string("the quote ") + c +
                                                                 " opened at column " +
                                                                 std::to_string(i + 1) + " is not closed");
            }
            i = j;
        } else {
            word += c;
        }
    }
    if (inWord) {
        words.push_back(std::move(word));
    }
    return words;
}

Result<ExtraFlags> applyExtraFlags(const ServerSettings& base, const std::vector<std::string>& words) {
    const Result<ParsedServerArgs> whole = parseServerArgs(words);
    if (!whole.ok()) {
        return whole.error();
    }
    if (!whole->model.empty()) {
        return makeError("flags.not-here", "-m " + whole->model + ": choose the model in the model list");
    }
    if (!whole->gpus.empty()) {
        return makeError("flags.not-here", "--gpu is LlamaFit's own flag: choose the machine instead");
    }
    ExtraFlags out;
    out.settings = base;
    out.unmodelledFlags = whole->unmodelledFlags;
    out.notes = whole->notes;
    const std::vector<std::string> sentinelArgs = toServerArgs(sentinelSettings());
    for (std::size_t i = 0; i < words.size();) {
        const std::size_t length = std::min(groupLength(words, i), words.size() - i);
        const std::vector<std::string> group(words.begin() + static_cast<std::ptrdiff_t>(i),
                                             words.begin() + static_cast<std::ptrdiff_t>(i + length));
        i += length;
        const Result<ParsedServerArgs> alone = parseServerArgs(group);
        std::vector<std::string> onSentinelArgs = sentinelArgs;
        onSentinelArgs.insert(onSentinelArgs.end(), group.begin(), group.end());
        const Result<ParsedServerArgs> onSentinel = parseServerArgs(onSentinelArgs);
        const bool memory =
            alone.ok() && onSentinel.ok() &&
            (alone->settings != ServerSettings{} || onSentinel->settings != sentinelSettings());
        if (memory) {
            mergeNamedFields(out.settings, alone->settings, onSentinel->settings);
            out.memoryFlags.push_back(joined(group));
        } else {
            out.passThrough.insert(out.passThrough.end(), group.begin(), group.end());
        }
    }
    return out;
}

} // namespace llamafit
