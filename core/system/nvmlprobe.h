#pragma once
// NvmlProbe: NVIDIA GPUs and their memory through NVML, loaded at run time
// (libnvidia-ml.so.1 on Linux, nvml.dll on Windows) so LlamaFit needs no NVIDIA package to
// build or run: without the library the source is reported missing. Keeps the library and
// nvmlInit open so the live sampler can re-read memory cheaply; nvmlShutdown on destruction.
// Written against NVIDIA's documented NVML API (nvml.h: nvmlInit_v2, nvmlDeviceGetCount_v2,
// nvmlDeviceGetHandleByIndex_v2, nvmlDeviceGetName, nvmlDeviceGetPciInfo_v3,
// nvmlDeviceGetMemoryInfo, nvmlSystemGetDriverVersion); tested here only against a fake
// library built by the tests (no NVIDIA GPU on the development machines).
// Thread: NVML is thread-safe; readMemory() may run on the sampler's worker. Units: bytes.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llamafit {

struct NvmlDevice {
    std::string name;                    // "NVIDIA GeForce RTX 4060"
    std::uint32_t vendorId = 0;          // low 16 bits of nvmlPciInfo_t.pciDeviceId (0x10de)
    std::uint32_t deviceId = 0;          // high 16 bits
    std::optional<std::string> pciBusId; // nvmlPciInfo_t.busId as NVML prints it ("00000000:01:00.0")
    NvmlMemory memory;                   // at open()
    bool operator==(const NvmlDevice&) const = default;
};

class NvmlProbe {
  public:
    // "libnvidia-ml.so.1" (Linux) or "nvml.dll" (Windows).
    static std::string defaultLibraryName();

    // Loads the library, calls nvmlInit_v2 and reads every device. Errors: "nvml.not-found"
    // (library absent: the usual case without an NVIDIA driver), "nvml.missing-symbol",
    // "nvml.init-failed", "nvml.query-failed" (each names the NVML return code).
    static Result<std::shared_ptr<NvmlProbe>> open(const std::string& libraryName = defaultLibraryName());

    ~NvmlProbe();
    NvmlProbe(const NvmlProbe&) = delete;
    NvmlProbe& operator=(const NvmlProbe&) = delete;

    const std::vector<NvmlDevice>& devices() const;
    std::string driverVersion() const; // "550.54.14"; empty when NVML did not say

    // Device index's memory read now. Errors: "nvml.bad-device-index", "nvml.query-failed".
    Result<NvmlMemory> readMemory(std::size_t index) const;

  private:
    struct Impl;
    explicit NvmlProbe(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> m_impl;
};

} // namespace llamafit
