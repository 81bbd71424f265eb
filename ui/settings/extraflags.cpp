// The "extra flags" field's words and how they are sorted; see extraflags.h.
#include "ui/settings/extraflags.h"

#include "core/flags/serverargs.h"

namespace llamafit {

namespace {

std::string joined(const std::vector<std::string>& words) {
    std::string text;
    for (const std::string& word : words) {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
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
    const Result<ParsedServerArgs> parsed = parseServerArgs(words);
    if (!parsed.ok()) {
        return parsed.error();
    }
    ExtraFlags out;
    out.settings = base;
    out.unmodelledFlags = parsed->unmodelledFlags;
    out.notes = parsed->notes;
    for (const ParsedFlag& flag : parsed->flags) {
        if (flag.id == FlagId::Model) {
            return makeError("flags.not-here", flag.text() + ": choose the model in the model list", {},
                             flag.spelling);
        }
        if (flag.kind == FlagKind::LlamaFit) {
            return makeError("flags.not-here",
                             flag.spelling + " is LlamaFit's own flag: choose the machine instead", {},
                             flag.spelling);
        }
        // The RPC hosts have one home, the session (the Cluster dock): each needs its free memory
        // to be planned, and the session would replace a list typed here with its own.
        if (flag.setting == Setting::RpcServers) {
            return makeError("flags.not-here",
                             flag.text() + ": add the RPC hosts in the Cluster dock, with their free memory",
                             {}, flag.spelling);
        }
        if (flag.kind == FlagKind::Memory && flag.setting) {
            // The parse applied every flag in order, so its settings hold the last word on each.
            copySetting(*flag.setting, parsed->settings, out.settings);
            out.memoryFlags.push_back(joined(flag.words));
        }
    }
    out.passThrough = passThroughWords(*parsed);
    return out;
}

} // namespace llamafit
