#pragma once
// Host memory and process memory read from the operating system: /proc/meminfo,
// /proc/PID/status and /proc/cpuinfo on Linux (parsed by core/machine/meminfo), and
// GlobalMemoryStatusEx / GetProcessMemoryInfo on Windows (written against the documented
// Win32 API behind #ifdef _WIN32 and NOT built or run on the Linux development machines).
// procDir is "/proc" except in tests, which point it at fixture trees.
// Used by deviceprobe and the live sampler's worker thread. Units: bytes.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"
#include "core/machine/meminfo.h"

#include <cstdint>
#include <filesystem>

namespace llamafit {

inline constexpr const char* kDefaultProcDir = "/proc";

// MemTotal / MemAvailable. Errors: "proc-meminfo.unreadable", or the parser's
// "meminfo.missing-field".
Result<HostMemory> readHostMemory(const std::filesystem::path& procDir = kDefaultProcDir);

// Resident set size of process pid (VmRSS; Windows: WorkingSetSize). Errors:
// "process.not-found" (no such process, or it exited), "proc-status.missing-field".
Result<std::uint64_t> readProcessRssBytes(std::int64_t pid,
                                          const std::filesystem::path& procDir = kDefaultProcDir);

// CPU model name and logical CPU count; empty fields when unknown.
CpuInfo readCpuInfo(const std::filesystem::path& procDir = kDefaultProcDir);

// The name the sources list uses for the host-memory source on this platform:
// "proc-meminfo" on Linux, "globalmemorystatus" on Windows.
const char* hostMemorySourceName();

} // namespace llamafit
