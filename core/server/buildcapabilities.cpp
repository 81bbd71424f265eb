// Parsing of `llama-server --version` / `--help` text; see buildcapabilities.h.

#include "core/server/buildcapabilities.h"

#include "core/flags/flagtable.h"

#include <cctype>
#include <charconv>
#include <map>

namespace llamafit {
namespace {

std::vector<std::string_view> splitLines(std::string_view text) {
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        lines.push_back(line);
        if (end == std::string_view::npos) {
            break;
        }
        text.remove_prefix(end + 1);
    }
    return lines;
}

std::optional<std::uint32_t> parseNumber(std::string_view text) {
    std::uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end == text.data()) {
        return std::nullopt;
    }
    return value;
}

// One option of the help: its spellings, the value hint and the full description.
struct HelpEntry {
    std::vector<std::string> spellings;
    std::string valueHint; // "[on|off|auto]", "N", "" for a switch
    std::string description;
};

bool isFlagWord(std::string_view word) {
    return word.size() >= 2 && word[0] == '-' &&
           (std::isalpha(static_cast<unsigned char>(word[1])) != 0 ||
            (word[1] == '-' && word.size() > 2 && std::isalnum(static_cast<unsigned char>(word[2])) != 0));
}

// "-t,    --threads N      description": the head ends at the first run of two spaces that
// does not follow a comma (the comma-padding between short and long spellings).
HelpEntry parseHead(std::string_view line) {
    std::size_t headEnd = line.size();
    for (std::size_t i = 1; i + 1 < line.size(); ++i) {
        if (line[i] == ' ' && line[i + 1] == ' ' && line[i - 1] != ',' && line[i - 1] != ' ') {
            headEnd = i;
            break;
        }
    }
    HelpEntry entry;
    std::string_view head = line.substr(0, headEnd);
    if (headEnd < line.size()) {
        std::string_view rest = line.substr(headEnd);
        const std::size_t start = rest.find_first_not_of(' ');
        entry.description = start == std::string_view::npos ? "" : std::string(rest.substr(start));
    }
    // Words separated by spaces; a word ending in ',' separates spellings.
    bool expectFlag = true;
    while (!head.empty()) {
        const std::size_t start = head.find_first_not_of(' ');
        if (start == std::string_view::npos) {
            break;
        }
        head.remove_prefix(start);
        const std::size_t end = head.find(' ');
        std::string_view word = head.substr(0, end);
        head.remove_prefix(end == std::string_view::npos ? head.size() : end);
        const bool endsSpelling = !word.empty() && word.back() == ',';
        std::string_view bare = endsSpelling ? word.substr(0, word.size() - 1) : word;
        if (expectFlag && isFlagWord(bare)) {
            entry.spellings.emplace_back(bare);
            expectFlag = endsSpelling; // "-t, --threads N": a comma means another spelling follows
        } else {
            if (!entry.valueHint.empty()) {
                entry.valueHint += ' ';
            }
            entry.valueHint += std::string(word);
            expectFlag = false;
        }
    }
    return entry;
}

std::vector<HelpEntry> parseHelp(std::string_view helpText) {
    std::vector<HelpEntry> entries;
    for (std::string_view line : splitLines(helpText)) {
        if (!line.empty() && line[0] == '-' && isFlagWord(line.substr(0, line.find_first_of(", ")))) {
            entries.push_back(parseHead(line));
        } else if (!entries.empty() && !line.empty() && line[0] == ' ') {
            const std::size_t start = line.find_first_not_of(' ');
            if (start != std::string_view::npos) {
                entries.back().description += ' ';
                entries.back().description += std::string(line.substr(start));
            }
        }
    }
    return entries;
}

// The help entry of a flag-table row: the one listing any of the row's spellings.
const HelpEntry* findEntry(const std::vector<HelpEntry>& entries, const FlagRow& row) {
    for (const HelpEntry& entry : entries) {
        for (const std::string& name : entry.spellings) {
            if (row.hasSpelling(name)) {
                return &entry;
            }
        }
    }
    return nullptr;
}

// "(default: 9931)" in a description.
std::optional<std::uint32_t> defaultNumber(std::string_view description) {
    const std::size_t at = description.find("default: ");
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    return parseNumber(description.substr(at + 9));
}

std::vector<std::string> allowedValues(std::string_view description) {
    std::vector<std::string> values;
    const std::size_t at = description.find("allowed values: ");
    if (at == std::string_view::npos) {
        return values;
    }
    std::string_view list = description.substr(at + 16);
    list = list.substr(0, list.find(" ("));
    while (!list.empty()) {
        const std::size_t comma = list.find(',');
        std::string_view item = list.substr(0, comma);
        while (!item.empty() && item.front() == ' ') {
            item.remove_prefix(1);
        }
        while (!item.empty() && item.back() == ' ') {
            item.remove_suffix(1);
        }
        if (!item.empty()) {
            values.emplace_back(item);
        }
        list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
    }
    return values;
}

// "version: 0.7.0 (build 11669, commit Debian)" (0.7.0) or "version: 5560 (a4417ddd)" (older).
bool parseVersionLine(std::string_view text, BuildCapabilities& caps) {
    for (std::string_view line : splitLines(text)) {
        const std::size_t at = line.find("version: ");
        if (at == std::string_view::npos) {
            continue;
        }
        std::string_view rest = line.substr(at + 9);
        const std::size_t space = rest.find(' ');
        caps.version = std::string(rest.substr(0, space));
        if (caps.version.empty()) {
            return false;
        }
        const std::size_t open = rest.find('(');
        const std::size_t close = rest.find(')');
        std::string_view inner =
            open != std::string_view::npos && close != std::string_view::npos && close > open
                ? rest.substr(open + 1, close - open - 1)
                : std::string_view{};
        if (const std::size_t build = inner.find("build "); build != std::string_view::npos) {
            caps.buildNumber = parseNumber(inner.substr(build + 6));
            if (const std::size_t commit = inner.find("commit "); commit != std::string_view::npos) {
                caps.commit = std::string(inner.substr(commit + 7));
            }
        } else {
            caps.buildNumber = parseNumber(caps.version); // older builds: the version is the build
            caps.commit = std::string(inner);
        }
        return true;
    }
    return false;
}

} // namespace

std::string BuildCapabilities::label() const {
    std::string text = "llama-server " + version;
    if (buildNumber && std::to_string(*buildNumber) != version) {
        text += " (build " + std::to_string(*buildNumber) + ")";
    }
    return text;
}

Result<BuildCapabilities> parseBuildCapabilities(std::string_view versionText, std::string_view helpText) {
    BuildCapabilities caps;
    if (!parseVersionLine(versionText, caps)) {
        return makeError("build.no-version", "the --version output has no \"version: ...\" line");
    }
    const std::vector<HelpEntry> entries = parseHelp(helpText);
    if (entries.empty()) {
        return makeError("build.no-help", "the --help output lists no option");
    }
    for (const HelpEntry& entry : entries) {
        caps.flags.insert(entry.spellings.begin(), entry.spellings.end());
    }
    caps.hasLoadMode = findEntry(entries, flagRowOf(Setting::LoadMode)) != nullptr;
    if (const HelpEntry* fa = findEntry(entries, flagRowOf(Setting::FlashAttention))) {
        caps.flashAttnTakesValue = !fa->valueHint.empty();
    }
    if (const HelpEntry* ngl = findEntry(entries, flagRowOf(Setting::GpuLayers))) {
        caps.gpuLayersTakesAuto = ngl->description.find("'auto'") != std::string::npos;
    }
    if (const HelpEntry* ctk = findEntry(entries, flagRowOf(Setting::CacheTypeK))) {
        caps.cacheTypes = allowedValues(ctk->description);
    }
    if (const HelpEntry* port = findEntry(entries, flagRow(FlagId::Port))) {
        if (const auto value = defaultNumber(port->description); value && *value > 0 && *value < 65536) {
            caps.defaultPort = static_cast<std::uint16_t>(*value);
        }
    }
    caps.supportsArgvCheck = findEntry(entries, flagRow(FlagId::Version)) != nullptr;
    return caps;
}

std::optional<std::uint32_t> buildNumberOfVersion(std::string_view versionText) {
    BuildCapabilities caps;
    return parseVersionLine(versionText, caps) ? caps.buildNumber : std::nullopt;
}

} // namespace llamafit
