#pragma once
// Parsers for the Linux procfs text LlamaFit reads about host memory and processes:
// /proc/meminfo (MemTotal, MemAvailable), /proc/PID/status (VmRSS) and /proc/cpuinfo
// ("model name"). Pure functions of the text (the caller reads the file), so tests feed
// fixture files. Used by core/system/deviceprobe and core/system/devicesampler.
// Units: the kernel prints "kB" meaning KiB; every result is in bytes.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llamafit {

// The value of a "Key:   1234 kB" line, in bytes; nullopt when the key is absent or its value
// is not a number. A value without the "kB" suffix is taken as a plain count.
std::optional<std::uint64_t> findProcKiBField(std::string_view text, std::string_view key);

// MemTotal and MemAvailable. Kernels before 3.14 have no MemAvailable: that is an error
// ("meminfo.missing-field"), not an estimate from MemFree + Cached.
Result<HostMemory> parseMemInfo(std::string_view text);

// VmRSS of /proc/PID/status. Kernel threads have none: "proc-status.missing-field".
Result<std::uint64_t> parseProcessRssBytes(std::string_view statusText);

// The first "model name" of /proc/cpuinfo (x86), or "Model"/"Hardware" (ARM boards); empty
// when none. logicalCpus counts the "processor" lines.
struct CpuInfo {
    std::string modelName;
    std::uint32_t logicalCpus = 0;
    bool operator==(const CpuInfo&) const = default;
};
CpuInfo parseCpuInfo(std::string_view text);

} // namespace llamafit
