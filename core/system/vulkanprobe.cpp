// Vulkan device discovery (see vulkanprobe.h). Only instance-level and physical-device
// queries: no VkDevice is created, so probing allocates nothing on the GPU and cannot change
// the budgets it reads.
//
// The loader is opened at run time (libvulkan.so.1, vulkan-1.dll), not linked: every GPU driver
// installs it, but a machine without one must still start LlamaFit, and the Windows build has
// no import library to link. Every entry point comes from vkGetInstanceProcAddr, as the
// Vulkan spec's "Command Function Pointers" section allows for each of them.

#include "core/system/vulkanprobe.h"

#define VK_NO_PROTOTYPES
#include <vulkan/vulkan.h>

#include <QLibrary>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#ifdef _WIN32
#define VULKAN_LOADER_NAME "vulkan-1.dll"
#else
#define VULKAN_LOADER_NAME "libvulkan.so.1"
#endif

namespace llamafit {

namespace {

bool hasExtension(const std::vector<VkExtensionProperties>& extensions, std::string_view name) {
    return std::any_of(extensions.begin(), extensions.end(),
                       [&](const VkExtensionProperties& e) { return name == e.extensionName; });
}

// The loader's vkGetInstanceProcAddr, from the library opened once for the process and never
// unloaded (an ICD may still hold threads or atexit handlers of its own).
PFN_vkGetInstanceProcAddr loaderEntryPoint() {
    static const PFN_vkGetInstanceProcAddr entry = [] {
#ifdef _WIN32
        static QLibrary loader(QStringLiteral("vulkan-1"));
#else
        static QLibrary loader(QStringLiteral("vulkan"), 1);
#endif
        return reinterpret_cast<PFN_vkGetInstanceProcAddr>(loader.resolve("vkGetInstanceProcAddr"));
    }();
    return entry;
}

template <typename Function> Function instanceFunction(VkInstance instance, const char* name) {
    return reinterpret_cast<Function>(loaderEntryPoint()(instance, name));
}

std::vector<VkExtensionProperties> instanceExtensions() {
    const auto enumerate = instanceFunction<PFN_vkEnumerateInstanceExtensionProperties>(
        VK_NULL_HANDLE, "vkEnumerateInstanceExtensionProperties");
    std::uint32_t count = 0;
    if (enumerate == nullptr || enumerate(nullptr, &count, nullptr) != VK_SUCCESS) {
        return {};
    }
    std::vector<VkExtensionProperties> extensions(count);
    if (enumerate(nullptr, &count, extensions.data()) < VK_SUCCESS) {
        return {};
    }
    extensions.resize(count);
    return extensions;
}

std::vector<VkExtensionProperties> deviceExtensions(PFN_vkEnumerateDeviceExtensionProperties enumerate,
                                                    VkPhysicalDevice device) {
    std::uint32_t count = 0;
    if (enumerate(device, nullptr, &count, nullptr) != VK_SUCCESS) {
        return {};
    }
    std::vector<VkExtensionProperties> extensions(count);
    if (enumerate(device, nullptr, &count, extensions.data()) < VK_SUCCESS) {
        return {};
    }
    extensions.resize(count);
    return extensions;
}

GpuType gpuType(VkPhysicalDeviceType type) {
    switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
        return GpuType::Integrated;
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
        return GpuType::Discrete;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
        return GpuType::Virtual;
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
        return GpuType::Cpu;
    default:
        return GpuType::Other;
    }
}

std::string pciBusText(const VkPhysicalDevicePCIBusInfoPropertiesEXT& info) {
    char text[32];
    std::snprintf(text, sizeof text, "%04x:%02x:%02x.%x", info.pciDomain, info.pciBus, info.pciDevice,
                  info.pciFunction);
    return text;
}

} // namespace

// What each physical device supports, found once at open(). Outside the anonymous namespace: the
// Impl that holds them has external linkage.
struct VulkanDeviceCaps {
    VkPhysicalDevice handle = VK_NULL_HANDLE;
    bool memoryBudget = false;
};

std::string vulkanVersionText(std::uint32_t packedVersion) {
    return std::to_string(VK_API_VERSION_MAJOR(packedVersion)) + "." +
           std::to_string(VK_API_VERSION_MINOR(packedVersion)) + "." +
           std::to_string(VK_API_VERSION_PATCH(packedVersion));
}

struct VulkanProbe::Impl {
    VkInstance instance = VK_NULL_HANDLE;
    std::uint32_t instanceVersion = VK_API_VERSION_1_0;
    PFN_vkDestroyInstance destroyInstance = nullptr;
    PFN_vkEnumeratePhysicalDevices enumeratePhysicalDevices = nullptr;
    PFN_vkEnumerateDeviceExtensionProperties enumerateDeviceExtensions = nullptr;
    PFN_vkGetPhysicalDeviceProperties getProperties = nullptr;
    PFN_vkGetPhysicalDeviceMemoryProperties getMemoryProperties = nullptr;
    PFN_vkGetPhysicalDeviceProperties2 getProperties2 = nullptr;
    PFN_vkGetPhysicalDeviceMemoryProperties2 getMemoryProperties2 = nullptr;
    std::vector<VulkanDeviceCaps> caps;
    std::vector<GpuInfo> devices;

    ~Impl() {
        if (instance != VK_NULL_HANDLE && destroyInstance != nullptr) {
            destroyInstance(instance, nullptr);
        }
    }

    std::vector<MemoryHeap> heaps(const VulkanDeviceCaps& device) const {
        VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
        budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
        VkPhysicalDeviceMemoryProperties2 properties{};
        properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
        const bool withBudget = device.memoryBudget && getMemoryProperties2 != nullptr;
        if (withBudget) {
            properties.pNext = &budget;
        }
        if (getMemoryProperties2 != nullptr) {
            getMemoryProperties2(device.handle, &properties);
        } else {
            getMemoryProperties(device.handle, &properties.memoryProperties);
        }
        std::vector<MemoryHeap> heaps;
        const VkPhysicalDeviceMemoryProperties& memory = properties.memoryProperties;
        for (std::uint32_t i = 0; i < memory.memoryHeapCount && i < VK_MAX_MEMORY_HEAPS; ++i) {
            MemoryHeap heap;
            heap.sizeBytes = memory.memoryHeaps[i].size;
            heap.deviceLocal = (memory.memoryHeaps[i].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
            if (withBudget) {
                heap.budgetBytes = budget.heapBudget[i];
                heap.usageBytes = budget.heapUsage[i];
            }
            heaps.push_back(heap);
        }
        return heaps;
    }

    GpuInfo describe(VulkanDeviceCaps& device) const {
        const std::vector<VkExtensionProperties> extensions =
            deviceExtensions(enumerateDeviceExtensions, device.handle);
        VkPhysicalDeviceProperties basic{};
        getProperties(device.handle, &basic);
        const bool chainable = getProperties2 != nullptr;
        // VK_KHR_driver_properties is core in 1.2; VK_EXT_memory_budget and VK_EXT_pci_bus_info
        // only need to be supported (not enabled) to be queried on the physical device.
        const bool driverProperties =
            chainable && (basic.apiVersion >= VK_API_VERSION_1_2 ||
                          hasExtension(extensions, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME));
        const bool pciBusInfo = chainable && hasExtension(extensions, VK_EXT_PCI_BUS_INFO_EXTENSION_NAME);
        device.memoryBudget =
            getMemoryProperties2 != nullptr && hasExtension(extensions, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);

        GpuInfo info;
        info.name = basic.deviceName;
        info.vendorId = basic.vendorID;
        info.deviceId = basic.deviceID;
        info.type = gpuType(basic.deviceType);
        info.source = "vulkan";
        info.apiVersion = vulkanVersionText(basic.apiVersion);
        // ggml-vulkan checks every op's tensors against these (ggml-vulkan.cpp supports_op).
        info.maxStorageBufferRangeBytes = basic.limits.maxStorageBufferRange;
        // VkPhysicalDeviceMaintenance3Properties is core in 1.1 (VK_KHR_maintenance3 before).
        const bool maintenance3 = chainable && (basic.apiVersion >= VK_API_VERSION_1_1 ||
                                                hasExtension(extensions, VK_KHR_MAINTENANCE3_EXTENSION_NAME));
        if (driverProperties || pciBusInfo || maintenance3) {
            VkPhysicalDeviceDriverProperties driver{};
            driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
            VkPhysicalDevicePCIBusInfoPropertiesEXT pci{};
            pci.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PCI_BUS_INFO_PROPERTIES_EXT;
            VkPhysicalDeviceProperties2 properties{};
            properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
            VkPhysicalDeviceMaintenance3Properties maintenance{};
            maintenance.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
            void** next = &properties.pNext;
            if (maintenance3) {
                *next = &maintenance;
                next = &maintenance.pNext;
            }
            if (driverProperties) {
                *next = &driver;
                next = &driver.pNext;
            }
            if (pciBusInfo) {
                *next = &pci;
            }
            getProperties2(device.handle, &properties);
            if (driverProperties) {
                info.driverName = driver.driverName;
                info.driverInfo = driver.driverInfo;
            }
            if (pciBusInfo) {
                info.pciBusId = pciBusText(pci);
            }
            if (maintenance3) {
                info.maxMemoryAllocationBytes = maintenance.maxMemoryAllocationSize;
            }
        }
        info.memoryBudget = device.memoryBudget;
        info.heaps = heaps(device);
        return info;
    }
};

VulkanProbe::VulkanProbe(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}
VulkanProbe::~VulkanProbe() = default;

const std::vector<GpuInfo>& VulkanProbe::devices() const {
    return m_impl->devices;
}

std::string VulkanProbe::instanceVersion() const {
    return vulkanVersionText(m_impl->instanceVersion);
}

Result<std::vector<MemoryHeap>> VulkanProbe::readHeaps(std::size_t deviceIndex) const {
    if (deviceIndex >= m_impl->caps.size()) {
        return makeError("vulkan.bad-device-index", "no Vulkan device " + std::to_string(deviceIndex) + " (" +
                                                        std::to_string(m_impl->caps.size()) + " found)");
    }
    return m_impl->heaps(m_impl->caps[deviceIndex]);
}

Result<std::shared_ptr<VulkanProbe>> VulkanProbe::open() {
    if (loaderEntryPoint() == nullptr) {
        return makeError("vulkan.no-instance", "no Vulkan loader (" VULKAN_LOADER_NAME
                                               ") on this machine: no Vulkan driver installed");
    }
    const auto createInstance = instanceFunction<PFN_vkCreateInstance>(VK_NULL_HANDLE, "vkCreateInstance");
    if (createInstance == nullptr) {
        return makeError("vulkan.no-instance",
                         "the Vulkan loader (" VULKAN_LOADER_NAME ") lacks vkCreateInstance");
    }
    auto impl = std::make_unique<Impl>();
    // vkEnumerateInstanceVersion is 1.1 loader API; a 1.0 loader lacks it (then 1.0).
    const auto enumerateVersion =
        instanceFunction<PFN_vkEnumerateInstanceVersion>(VK_NULL_HANDLE, "vkEnumerateInstanceVersion");
    if (enumerateVersion != nullptr && enumerateVersion(&impl->instanceVersion) != VK_SUCCESS) {
        impl->instanceVersion = VK_API_VERSION_1_0;
    }
    const std::vector<VkExtensionProperties> available = instanceExtensions();
    std::vector<const char*> enabled;
    const bool properties2Khr =
        impl->instanceVersion < VK_API_VERSION_1_1 &&
        hasExtension(available, VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    if (properties2Khr) {
        enabled.push_back(VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
    }
    // MoltenVK and other non-conformant drivers are only listed with portability enumeration.
    const bool portability = hasExtension(available, VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    if (portability) {
        enabled.push_back(VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
    }

    VkApplicationInfo application{};
    application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    application.pApplicationName = "LlamaFit device probe";
    application.apiVersion =
        impl->instanceVersion >= VK_API_VERSION_1_1 ? VK_API_VERSION_1_1 : VK_API_VERSION_1_0;
    VkInstanceCreateInfo create{};
    create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    create.pApplicationInfo = &application;
    create.enabledExtensionCount = static_cast<std::uint32_t>(enabled.size());
    create.ppEnabledExtensionNames = enabled.data();
    if (portability) {
        create.flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    if (const VkResult result = createInstance(&create, nullptr, &impl->instance); result != VK_SUCCESS) {
        impl->instance = VK_NULL_HANDLE;
        return makeError("vulkan.no-instance",
                         "vkCreateInstance failed with VkResult " + std::to_string(static_cast<int>(result)) +
                             (result == VK_ERROR_INCOMPATIBLE_DRIVER ? " (no Vulkan driver installed)" : ""));
    }
    const VkInstance instance = impl->instance;
    impl->destroyInstance = instanceFunction<PFN_vkDestroyInstance>(instance, "vkDestroyInstance");
    impl->enumeratePhysicalDevices =
        instanceFunction<PFN_vkEnumeratePhysicalDevices>(instance, "vkEnumeratePhysicalDevices");
    impl->enumerateDeviceExtensions = instanceFunction<PFN_vkEnumerateDeviceExtensionProperties>(
        instance, "vkEnumerateDeviceExtensionProperties");
    impl->getProperties =
        instanceFunction<PFN_vkGetPhysicalDeviceProperties>(instance, "vkGetPhysicalDeviceProperties");
    impl->getMemoryProperties = instanceFunction<PFN_vkGetPhysicalDeviceMemoryProperties>(
        instance, "vkGetPhysicalDeviceMemoryProperties");
    if (impl->destroyInstance == nullptr || impl->enumeratePhysicalDevices == nullptr ||
        impl->enumerateDeviceExtensions == nullptr || impl->getProperties == nullptr ||
        impl->getMemoryProperties == nullptr) {
        return makeError("vulkan.no-instance",
                         "the Vulkan loader (" VULKAN_LOADER_NAME ") lacks a Vulkan 1.0 instance function");
    }
    if (application.apiVersion >= VK_API_VERSION_1_1) {
        impl->getProperties2 =
            instanceFunction<PFN_vkGetPhysicalDeviceProperties2>(instance, "vkGetPhysicalDeviceProperties2");
        impl->getMemoryProperties2 = instanceFunction<PFN_vkGetPhysicalDeviceMemoryProperties2>(
            instance, "vkGetPhysicalDeviceMemoryProperties2");
    } else if (properties2Khr) {
        impl->getProperties2 = instanceFunction<PFN_vkGetPhysicalDeviceProperties2>(
            instance, "vkGetPhysicalDeviceProperties2KHR");
        impl->getMemoryProperties2 = instanceFunction<PFN_vkGetPhysicalDeviceMemoryProperties2>(
            instance, "vkGetPhysicalDeviceMemoryProperties2KHR");
    }

    std::uint32_t count = 0;
    VkResult result = impl->enumeratePhysicalDevices(impl->instance, &count, nullptr);
    std::vector<VkPhysicalDevice> handles(count);
    if (result == VK_SUCCESS && count > 0) {
        result = impl->enumeratePhysicalDevices(impl->instance, &count, handles.data());
        handles.resize(count);
    }
    if (result != VK_SUCCESS && result != VK_INCOMPLETE) {
        return makeError("vulkan.enumerate-failed", "vkEnumeratePhysicalDevices failed with VkResult " +
                                                        std::to_string(static_cast<int>(result)));
    }
    for (VkPhysicalDevice handle : handles) {
        impl->caps.push_back(VulkanDeviceCaps{handle, false});
        impl->devices.push_back(impl->describe(impl->caps.back()));
    }
    return std::shared_ptr<VulkanProbe>(new VulkanProbe(std::move(impl)));
}

} // namespace llamafit
