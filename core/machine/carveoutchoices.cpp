// Known BIOS carve-out lists; see carveoutchoices.h.
#include "core/machine/carveoutchoices.h"

#include "core/common/units.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace llamafit {

namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

bool contains(const std::string& haystack, std::string_view needle) {
    return haystack.find(needle) != std::string::npos;
}

std::vector<std::uint64_t> gib(std::initializer_list<double> sizes) {
    std::vector<std::uint64_t> bytes;
    for (double size : sizes) {
        bytes.push_back(static_cast<std::uint64_t>(size * static_cast<double>(kGiB)));
    }
    return bytes;
}

} // namespace

CarveOutChoices knownCarveOutChoices(ApuFamily family, std::uint64_t physicalBytes) {
    switch (family) {
    case ApuFamily::StrixHalo:
        if (physicalBytes >= 120 * kGiB) {
            return {
                gib({0.5, 16, 24, 32, 64, 96}),
                "Strix Halo 128 GB: 512 MiB (lemonade-sdk/llamacpp-rocm#9, lhl/strix-halo-testing), 16/24 GB "
                "(early Framework BIOSes), 64 GB (Framework BIOS lfsp0.03.05), 96 GB (AMD VGM blog "
                "2025-07-29, "
                "koboldcpp#1789, llama.cpp#16832)"};
        }
        if (physicalBytes >= 60 * kGiB) {
            return {gib({0.5, 8, 16, 32, 48}),
                    "Strix Halo 64 GB: 8/16/32/48 GB tested on a GMKtec EVO-X2, 32 GB the factory default "
                    "(lilting.ch strix-halo-vram-memory-optimization); 512 MiB (HP ZBook Ultra G1a 64 GB, "
                    "cardosofelipe/strix-halo-optimizations)"};
        }
        break;
    case ApuFamily::IntelIgpu:
        // The DVMT pre-allocation is small and the iGPU works from shared GPU memory (1/2 RAM on
        // Windows), so the split barely matters for llama.cpp.
        return {
            {32 * kMiB, 64 * kMiB, 128 * kMiB, 256 * kMiB, 512 * kMiB},
            "Intel DVMT pre-allocated sizes (inference: typical BIOS values, not from a report); the iGPU "
            "allocates from shared GPU memory"};
    case ApuFamily::RyzenMobile:
    case ApuFamily::Other:
        break;
    }
    // Ryzen 7040/8040/AI 300 and unknown APUs: 512 MiB (AMD's recommended default, ASUS support via
    // ROCm#1732) and powers of two up to half the RAM (the usual laptop BIOS ceiling, rootpages#1191),
    // plus 3/4 of the RAM that AMD Variable Graphics Memory allows on Ryzen AI 300 under Windows.
    std::vector<std::uint64_t> sizes{512 * kMiB};
    for (std::uint64_t size = kGiB; size <= physicalBytes / 2; size *= 2) {
        sizes.push_back(size);
    }
    const std::uint64_t threeQuarters = physicalBytes / 4 * 3;
    if (physicalBytes > 0 && threeQuarters > sizes.back()) {
        sizes.push_back(threeQuarters);
    }
    return {
        sizes,
        "512 MiB default (ROCm#1732), powers of two up to 1/2 of RAM (laptop BIOS ceiling, rootpages#1191), "
        "3/4 of RAM with AMD Variable Graphics Memory (Ryzen AI 300 launch); check your BIOS"};
}

ApuFamily apuFamilyFromName(std::string_view name) {
    const std::string text = lower(name);
    if (contains(text, "ryzen ai max") || contains(text, "8060s") || contains(text, "8050s") ||
        contains(text, "strix halo") || contains(text, "gfx1151")) {
        return ApuFamily::StrixHalo;
    }
    if (contains(text, "intel") || contains(text, "iris") || contains(text, "uhd graphics")) {
        return ApuFamily::IntelIgpu;
    }
    for (std::string_view marker :
         {"ryzen ai 9", "ryzen ai 7", "ryzen ai 5", "hx 370", "780m", "760m", "880m", "890m", " 7840",
          " 7940", " 8840", " 8845", " 8945", " 7640", " 8640"}) {
        if (contains(text, marker)) {
            return ApuFamily::RyzenMobile;
        }
    }
    return ApuFamily::Other;
}

Result<std::vector<std::uint64_t>> parseCarveOutList(std::string_view text) {
    std::vector<std::uint64_t> sizes;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        double value = 0;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (ec != std::errc() || end != item.data() + item.size() || !(value > 0) || value > 1e6) {
            return makeError("machine.bad-value",
                             "carve-out size '" + std::string(item) + "' is not a positive number of GiB");
        }
        sizes.push_back(static_cast<std::uint64_t>(std::llround(value * static_cast<double>(kMiB))) * kKiB);
        text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    }
    if (sizes.empty()) {
        return makeError("machine.bad-value", "no carve-out sizes given");
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
}

} // namespace llamafit
