// NVML through QLibrary (see nvmlprobe.h), with the types of core/system/nvmltypes.h.

#include "core/system/nvmlprobe.h"

#include "core/system/nvmltypes.h"

#include <QLibrary>
#include <QString>

#include <cstring>

namespace llamafit {

namespace {

// nvmlReturn_t is an enum, 0 = NVML_SUCCESS.
using NvmlDeviceHandle = nvmlDevice_st*;
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
using NvmlMemoryRaw = nvmlMemory_st;
using NvmlPciInfoRaw = nvmlPciInfo_st;

constexpr unsigned kNameBufferBytes = 96;          // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kDriverVersionBufferBytes = 80; // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE

using InitFn = NvmlReturn (*)();
using ShutdownFn = NvmlReturn (*)();
using GetCountFn = NvmlReturn (*)(unsigned int*);
using GetHandleFn = NvmlReturn (*)(unsigned int, NvmlDeviceHandle*);
using GetNameFn = NvmlReturn (*)(NvmlDeviceHandle, char*, unsigned int);
using GetPciInfoFn = NvmlReturn (*)(NvmlDeviceHandle, NvmlPciInfoRaw*);
using GetMemoryFn = NvmlReturn (*)(NvmlDeviceHandle, NvmlMemoryRaw*);
using GetDriverVersionFn = NvmlReturn (*)(char*, unsigned int);

Error nvmlFailure(const char* function, NvmlReturn code) {
    return makeError("nvml.query-failed",
                     std::string(function) + " returned NVML error " + std::to_string(code));
}

NvmlMemory toMemory(const NvmlMemoryRaw& raw) {
    return NvmlMemory{raw.total, raw.used, raw.free};
}

} // namespace

struct NvmlProbe::Impl {
    QLibrary library;
    bool initialised = false;
    ShutdownFn shutdown = nullptr;
    GetMemoryFn getMemory = nullptr;
    std::vector<NvmlDeviceHandle> handles;
    std::vector<NvmlDevice> devices;
    std::string driverVersion;

    ~Impl() {
        if (initialised && shutdown != nullptr) {
            shutdown();
        }
        // The library stays mapped: NVML may keep threads of its own, and unloading a
        // driver library under them is not worth the saved memory.
    }

    template <typename Fn> Fn resolve(const char* name) {
        return reinterpret_cast<Fn>(library.resolve(name));
    }
};

std::string NvmlProbe::defaultLibraryName() {
#ifdef _WIN32
    return "nvml.dll";
#else
    return "libnvidia-ml.so.1";
#endif
}

NvmlProbe::NvmlProbe(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
NvmlProbe::~NvmlProbe() = default;

const std::vector<NvmlDevice>& NvmlProbe::devices() const {
    return m_impl->devices;
}
std::string NvmlProbe::driverVersion() const {
    return m_impl->driverVersion;
}

Result<NvmlMemory> NvmlProbe::readMemory(std::size_t index) const {
    if (index >= m_impl->handles.size()) {
        return makeError("nvml.bad-device-index", "no NVML device " + std::to_string(index) + " (" +
                                                      std::to_string(m_impl->handles.size()) + " found)");
    }
    NvmlMemoryRaw raw{};
    if (const NvmlReturn code = m_impl->getMemory(m_impl->handles[index], &raw); code != kNvmlSuccess) {
        return nvmlFailure("nvmlDeviceGetMemoryInfo", code);
    }
    return toMemory(raw);
}

Result<std::shared_ptr<NvmlProbe>> NvmlProbe::open(const std::string& libraryName) {
    auto impl = std::make_unique<Impl>();
    impl->library.setFileName(QString::fromStdString(libraryName));
    if (!impl->library.load()) {
        return makeError("nvml.not-found", impl->library.errorString().toStdString());
    }
    const auto init = impl->resolve<InitFn>("nvmlInit_v2");
    impl->shutdown = impl->resolve<ShutdownFn>("nvmlShutdown");
    const auto getCount = impl->resolve<GetCountFn>("nvmlDeviceGetCount_v2");
    const auto getHandle = impl->resolve<GetHandleFn>("nvmlDeviceGetHandleByIndex_v2");
    const auto getName = impl->resolve<GetNameFn>("nvmlDeviceGetName");
    const auto getPciInfo = impl->resolve<GetPciInfoFn>("nvmlDeviceGetPciInfo_v3");
    const auto getDriverVersion = impl->resolve<GetDriverVersionFn>("nvmlSystemGetDriverVersion");
    impl->getMemory = impl->resolve<GetMemoryFn>("nvmlDeviceGetMemoryInfo");
    if (init == nullptr || impl->shutdown == nullptr || getCount == nullptr || getHandle == nullptr ||
        getName == nullptr || impl->getMemory == nullptr) {
        return makeError("nvml.missing-symbol", libraryName +
                                                    " lacks one of nvmlInit_v2, nvmlShutdown, "
                                                    "nvmlDeviceGetCount_v2, nvmlDeviceGetHandleByIndex_v2, "
                                                    "nvmlDeviceGetName, nvmlDeviceGetMemoryInfo");
    }
    if (const NvmlReturn code = init(); code != kNvmlSuccess) {
        return makeError("nvml.init-failed",
                         "nvmlInit_v2 returned NVML error " + std::to_string(code) + " (driver not loaded?)");
    }
    impl->initialised = true;

    if (getDriverVersion != nullptr) {
        char version[kDriverVersionBufferBytes] = {};
        if (getDriverVersion(version, sizeof version) == kNvmlSuccess) {
            impl->driverVersion = std::string(version, strnlen(version, sizeof version));
        }
    }
    unsigned int count = 0;
    if (const NvmlReturn code = getCount(&count); code != kNvmlSuccess) {
        return nvmlFailure("nvmlDeviceGetCount_v2", code);
    }
    for (unsigned int i = 0; i < count; ++i) {
        NvmlDeviceHandle handle = nullptr;
        if (const NvmlReturn code = getHandle(i, &handle); code != kNvmlSuccess) {
            return nvmlFailure("nvmlDeviceGetHandleByIndex_v2", code);
        }
        NvmlDevice device;
        char name[kNameBufferBytes] = {};
        if (getName(handle, name, sizeof name) == kNvmlSuccess) {
            device.name = std::string(name, strnlen(name, sizeof name));
        }
        NvmlPciInfoRaw pci{};
        if (getPciInfo != nullptr && getPciInfo(handle, &pci) == kNvmlSuccess) {
            device.vendorId = pci.pciDeviceId & 0xffffu;
            device.deviceId = pci.pciDeviceId >> 16;
            device.pciBusId = std::string(pci.busId, strnlen(pci.busId, sizeof pci.busId));
        }
        NvmlMemoryRaw memory{};
        if (const NvmlReturn code = impl->getMemory(handle, &memory); code != kNvmlSuccess) {
            return nvmlFailure("nvmlDeviceGetMemoryInfo", code);
        }
        device.memory = toMemory(memory);
        impl->handles.push_back(handle);
        impl->devices.push_back(std::move(device));
    }
    return std::shared_ptr<NvmlProbe>(new NvmlProbe(std::move(impl)));
}

} // namespace llamafit
