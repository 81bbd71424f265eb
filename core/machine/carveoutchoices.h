#pragma once
// The BIOS carve-out sizes an APU offers ("UMA frame buffer size", "iGPU memory", AMD
// Variable Graphics Memory), per family, as far as public reports list them, or typed in by the
// user. Read by the BIOS split advisor, the profiles and `llamafit-cli plan --carve-outs`.
// Sources are in /work/shared/reference/unified-memory.md section 1. Bytes.

#include "core/common/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

enum class ApuFamily {
    StrixHalo,   // Ryzen AI Max / Max+ (Radeon 8050S/8060S)
    RyzenMobile, // Ryzen 7040 / 8040 (Phoenix, Hawk Point) and Ryzen AI 300 (Strix Point)
    IntelIgpu,   // Intel UHD / Iris Xe / Arc iGPUs
    Other,
};

struct CarveOutChoices {
    std::vector<std::uint64_t> bytes; // ascending
    std::string source;               // where the list comes from, "inference" where it is ours
    bool operator==(const CarveOutChoices&) const = default;
};

CarveOutChoices knownCarveOutChoices(ApuFamily family, std::uint64_t physicalBytes);

// From a CPU or GPU name: "AMD Ryzen AI Max+ 395" -> StrixHalo, "Ryzen 7 7840U" -> RyzenMobile, ...
ApuFamily apuFamilyFromName(std::string_view name);

// "0.5,8,16,32,48": GiB, ascending or not, as a user types them. Error: machine.bad-value.
Result<std::vector<std::uint64_t>> parseCarveOutList(std::string_view text);

} // namespace llamafit
