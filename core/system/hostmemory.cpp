// OS reads for host and process memory (see hostmemory.h).

#include "core/system/hostmemory.h"

#include <fstream>
#include <sstream>
#include <thread>

#ifdef _WIN32
// Written against the Win32 documentation (sysinfoapi.h, psapi.h, winreg.h); run under Wine by
// scripts/test-windows.sh (the unit tests and the installed CLI).
// windows.h must come before psapi.h (kept apart so include sorting cannot swap them).
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <psapi.h>
#endif

namespace llamafit {

namespace {

[[maybe_unused]] Result<std::string> readTextFile(const std::filesystem::path& path, const char* code) {
    std::ifstream file(path);
    if (!file) {
        return makeError(code, "cannot read " + path.string());
    }
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

} // namespace

#ifdef _WIN32

Result<HostMemory> readHostMemory(const std::filesystem::path&) {
    MEMORYSTATUSEX status{};
    status.dwLength = sizeof status;
    if (!GlobalMemoryStatusEx(&status)) {
        return makeError("globalmemorystatus.failed",
                         "GlobalMemoryStatusEx failed, error " + std::to_string(GetLastError()));
    }
    return HostMemory{status.ullTotalPhys, status.ullAvailPhys};
}

Result<std::uint64_t> readProcessRssBytes(std::int64_t pid, const std::filesystem::path&) {
    HANDLE process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, static_cast<DWORD>(pid));
    if (process == nullptr) {
        return makeError("process.not-found", "cannot open process " + std::to_string(pid));
    }
    PROCESS_MEMORY_COUNTERS counters{};
    const BOOL ok = GetProcessMemoryInfo(process, &counters, sizeof counters);
    CloseHandle(process);
    if (!ok) {
        return makeError("process.not-found",
                         "GetProcessMemoryInfo failed for process " + std::to_string(pid));
    }
    return static_cast<std::uint64_t>(counters.WorkingSetSize);
}

CpuInfo readCpuInfo(const std::filesystem::path&) {
    CpuInfo info;
    info.logicalCpus = std::thread::hardware_concurrency();
    // The name Task Manager shows: the firmware's brand string, which Windows keeps per processor.
    char name[256] = {};
    DWORD size = sizeof name;
    if (RegGetValueA(HKEY_LOCAL_MACHINE, "HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                     "ProcessorNameString", RRF_RT_REG_SZ, nullptr, name, &size) == ERROR_SUCCESS) {
        std::string text(name);
        // The brand string is padded with spaces in the firmware; Windows keeps them.
        const auto first = text.find_first_not_of(' ');
        const auto last = text.find_last_not_of(' ');
        info.modelName = first == std::string::npos ? std::string() : text.substr(first, last - first + 1);
    }
    return info;
}

const char* hostMemorySourceName() {
    return "globalmemorystatus";
}

#else

Result<HostMemory> readHostMemory(const std::filesystem::path& procDir) {
    Result<std::string> text = readTextFile(procDir / "meminfo", "proc-meminfo.unreadable");
    if (!text) {
        return text.error();
    }
    return parseMemInfo(*text);
}

Result<std::uint64_t> readProcessRssBytes(std::int64_t pid, const std::filesystem::path& procDir) {
    Result<std::string> text = readTextFile(procDir / std::to_string(pid) / "status", "process.not-found");
    if (!text) {
        return makeError("process.not-found",
                         "no process " + std::to_string(pid) + " (" + text.error().message + ")");
    }
    return parseProcessRssBytes(*text);
}

CpuInfo readCpuInfo(const std::filesystem::path& procDir) {
    Result<std::string> text = readTextFile(procDir / "cpuinfo", "proc-cpuinfo.unreadable");
    CpuInfo info = text ? parseCpuInfo(*text) : CpuInfo{};
    if (info.logicalCpus == 0) {
        info.logicalCpus = std::thread::hardware_concurrency();
    }
    return info;
}

const char* hostMemorySourceName() {
    return "proc-meminfo";
}

#endif

} // namespace llamafit
