// A stand-in for libnvidia-ml.so.1, loaded by nvmlprobe_test and deviceprobe_test through
// NvmlProbe::open(path). It implements the NVML calls LlamaFit uses, with the documented
// nvml.h signatures and struct layouts, for two fixed GPUs:
//   0: "NVIDIA GeForce RTX 4060", 8 GiB, PCI 00000000:01:00.0, 10de:2882
//   1: "NVIDIA GeForce RTX 3090", 24 GiB, PCI 00000000:2b:00.0, 10de:2204
// Used memory grows by 1 MiB per nvmlDeviceGetMemoryInfo call, so a sampler sees it move.
// LLAMAFIT_FAKE_NVML_INIT_ERROR=<code> makes nvmlInit_v2 fail with that code.

#include "core/system/nvmltypes.h" // a handle is the address of a FakeDevice

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct FakeDevice {
    const char* name;
    const char* busId;
    unsigned int pciDeviceId;
    unsigned long long totalBytes;
    unsigned long long usedBytes;
};

FakeDevice g_devices[] = {
    {"NVIDIA GeForce RTX 4060", "00000000:01:00.0", 0x288210deu, 8ull << 30, 300ull << 20},
    {"NVIDIA GeForce RTX 3090", "00000000:2b:00.0", 0x220410deu, 24ull << 30, 500ull << 20},
};
bool g_initialised = false;

constexpr int kSuccess = 0;
constexpr int kUninitialized = 1;
constexpr int kInvalidArgument = 2;
constexpr int kInsufficientSize = 7;

FakeDevice* device(nvmlDevice_st* handle) {
    return reinterpret_cast<FakeDevice*>(handle);
}

} // namespace

#define FAKE_NVML_EXPORT extern "C" __attribute__((visibility("default")))

FAKE_NVML_EXPORT int nvmlInit_v2() {
    if (const char* error = std::getenv("LLAMAFIT_FAKE_NVML_INIT_ERROR")) {
        return std::atoi(error);
    }
    g_initialised = true;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlShutdown() {
    g_initialised = false;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    if (length < 10) {
        return kInsufficientSize;
    }
    std::snprintf(version, length, "550.54.14");
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetCount_v2(unsigned int* count) {
    if (!g_initialised) {
        return kUninitialized;
    }
    *count = 2;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_st** handle) {
    if (index >= 2) {
        return kInvalidArgument;
    }
    *handle = reinterpret_cast<nvmlDevice_st*>(&g_devices[index]);
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetName(nvmlDevice_st* handle, char* name, unsigned int length) {
    if (std::strlen(device(handle)->name) + 1 > length) {
        return kInsufficientSize;
    }
    std::snprintf(name, length, "%s", device(handle)->name);
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetPciInfo_v3(nvmlDevice_st* handle, nvmlPciInfo_st* pci) {
    std::memset(pci, 0, sizeof *pci);
    std::snprintf(pci->busId, sizeof pci->busId, "%s", device(handle)->busId);
    pci->pciDeviceId = device(handle)->pciDeviceId;
    return kSuccess;
}

FAKE_NVML_EXPORT int nvmlDeviceGetMemoryInfo(nvmlDevice_st* handle, nvmlMemory_st* memory) {
    if (!g_initialised) {
        return kUninitialized;
    }
    FakeDevice* fake = device(handle);
    fake->usedBytes += 1ull << 20;
    memory->total = fake->totalBytes;
    memory->used = fake->usedBytes;
    memory->free = fake->totalBytes - fake->usedBytes;
    return kSuccess;
}
