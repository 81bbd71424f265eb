// Reads amdgpu's sysfs memory files (see amdgpusysfs.h). Each file is read on its own and a
// failure only empties that figure: a partial answer beats none, and nothing is guessed.

#include "core/machine/amdgpusysfs.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <system_error>

namespace llamafit {

namespace {

std::optional<std::string> readSmallFile(const std::filesystem::path& path) {
    std::ifstream file(path);
    if (!file) {
        return std::nullopt;
    }
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad()) {
        return std::nullopt;
    }
    return text.str();
}

std::optional<std::uint64_t> readNumberFile(const std::filesystem::path& path) {
    const std::optional<std::string> text = readSmallFile(path);
    return text ? parseSysfsNumber(*text) : std::nullopt;
}

// "KEY=value" from a uevent file, or empty.
std::string ueventValue(const std::string& uevent, std::string_view key) {
    std::istringstream lines(uevent);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.size() > key.size() && line.compare(0, key.size(), key) == 0 && line[key.size()] == '=') {
            return line.substr(key.size() + 1);
        }
    }
    return {};
}

// "card12" -> 12; nullopt for connectors ("card1-DP-1"), render nodes and anything else.
std::optional<unsigned> cardNumber(const std::string& name) {
    constexpr std::string_view kPrefix = "card";
    if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) {
        return std::nullopt;
    }
    unsigned number = 0;
    const char* first = name.data() + kPrefix.size();
    const char* last = name.data() + name.size();
    const auto [end, error] = std::from_chars(first, last, number);
    if (error != std::errc{} || end != last) {
        return std::nullopt;
    }
    return number;
}

} // namespace

std::optional<std::uint64_t> parseSysfsNumber(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
        text.remove_suffix(1);
    }
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        text.remove_prefix(2);
        base = 16;
    }
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    if (text.empty() || error != std::errc{} || end != text.data() + text.size()) {
        return std::nullopt;
    }
    return value;
}

AmdgpuMemory readAmdgpuMemory(const std::filesystem::path& deviceDir, std::string card) {
    AmdgpuMemory memory;
    memory.card = std::move(card);
    memory.vramTotalBytes = readNumberFile(deviceDir / "mem_info_vram_total");
    memory.vramUsedBytes = readNumberFile(deviceDir / "mem_info_vram_used");
    memory.visVramTotalBytes = readNumberFile(deviceDir / "mem_info_vis_vram_total");
    memory.gttTotalBytes = readNumberFile(deviceDir / "mem_info_gtt_total");
    memory.gttUsedBytes = readNumberFile(deviceDir / "mem_info_gtt_used");
    return memory;
}

Result<std::vector<AmdgpuCard>> readAmdgpuCards(const std::filesystem::path& drmClassDir) {
    std::error_code error;
    std::filesystem::directory_iterator entries(drmClassDir, error);
    if (error) {
        return makeError("amdgpu-sysfs.no-drm-class",
                         "cannot list " + drmClassDir.string() + ": " + error.message());
    }
    std::vector<std::pair<unsigned, AmdgpuCard>> found;
    for (const std::filesystem::directory_entry& entry : entries) {
        const std::string name = entry.path().filename().string();
        const std::optional<unsigned> number = cardNumber(name);
        if (!number) {
            continue;
        }
        const std::filesystem::path deviceDir = entry.path() / "device";
        const std::string uevent = readSmallFile(deviceDir / "uevent").value_or(std::string{});
        const bool amdgpu = ueventValue(uevent, "DRIVER") == "amdgpu" ||
                            std::filesystem::exists(deviceDir / "mem_info_vram_total", error);
        if (!amdgpu) {
            continue;
        }
        AmdgpuCard card;
        card.memory = readAmdgpuMemory(deviceDir, name);
        card.deviceDir = deviceDir;
        card.vendorId = static_cast<std::uint32_t>(readNumberFile(deviceDir / "vendor").value_or(0));
        card.deviceId = static_cast<std::uint32_t>(readNumberFile(deviceDir / "device").value_or(0));
        if (std::string slot = ueventValue(uevent, "PCI_SLOT_NAME"); !slot.empty()) {
            card.pciBusId = std::move(slot);
        }
        found.emplace_back(*number, std::move(card));
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<AmdgpuCard> cards;
    cards.reserve(found.size());
    for (auto& [number, card] : found) {
        cards.push_back(std::move(card));
    }
    return cards;
}

} // namespace llamafit
