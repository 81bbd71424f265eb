// The three device-memory reader kinds (see devicememoryreader.h).

#include "core/system/devicememoryreader.h"

#include "core/machine/amdgpusysfs.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace llamafit {

namespace {

class AmdgpuReader final : public DeviceMemoryReader {
  public:
    AmdgpuReader(std::filesystem::path file, std::string label, std::size_t gpuIndex)
        : m_file(std::move(file)), m_label(std::move(label)), m_gpuIndex(gpuIndex) {}
    const std::string& label() const override { return m_label; }
    std::size_t gpuIndex() const override { return m_gpuIndex; }
    Result<std::uint64_t> readUsedBytes() override {
        std::ifstream file(m_file);
        std::ostringstream text;
        text << file.rdbuf();
        if (const std::optional<std::uint64_t> used = file ? parseSysfsNumber(text.str()) : std::nullopt) {
            return *used;
        }
        return makeError("amdgpu-sysfs.unreadable", "cannot read a number from " + m_file.string());
    }

  private:
    std::filesystem::path m_file;
    std::string m_label;
    std::size_t m_gpuIndex;
};

class NvmlReader final : public DeviceMemoryReader {
  public:
    NvmlReader(std::shared_ptr<NvmlProbe> nvml, std::size_t nvmlIndex, std::string label,
               std::size_t gpuIndex)
        : m_nvml(std::move(nvml)), m_nvmlIndex(nvmlIndex), m_label(std::move(label)), m_gpuIndex(gpuIndex) {}
    const std::string& label() const override { return m_label; }
    std::size_t gpuIndex() const override { return m_gpuIndex; }
    Result<std::uint64_t> readUsedBytes() override {
        Result<NvmlMemory> memory = m_nvml->readMemory(m_nvmlIndex);
        if (!memory) {
            return memory.error();
        }
        return memory->usedBytes;
    }

  private:
    std::shared_ptr<NvmlProbe> m_nvml;
    std::size_t m_nvmlIndex;
    std::string m_label;
    std::size_t m_gpuIndex;
};

// VK_EXT_memory_budget gives this process's budget, which shrinks as other programs take
// memory; size - budget over the device-local heaps is the memory this process cannot have.
// It includes the driver's reserve, so it is a trend line, not an exact "used" figure.
class VulkanBudgetReader final : public DeviceMemoryReader {
  public:
    VulkanBudgetReader(std::shared_ptr<VulkanProbe> vulkan, std::size_t vulkanIndex, std::string label,
                       std::size_t gpuIndex)
        : m_vulkan(std::move(vulkan)), m_vulkanIndex(vulkanIndex), m_label(std::move(label)),
          m_gpuIndex(gpuIndex) {}
    const std::string& label() const override { return m_label; }
    std::size_t gpuIndex() const override { return m_gpuIndex; }
    Result<std::uint64_t> readUsedBytes() override {
        Result<std::vector<MemoryHeap>> heaps = m_vulkan->readHeaps(m_vulkanIndex);
        if (!heaps) {
            return heaps.error();
        }
        std::uint64_t unavailable = 0;
        bool any = false;
        for (const MemoryHeap& heap : *heaps) {
            if (heap.deviceLocal && heap.budgetBytes) {
                any = true;
                unavailable += heap.sizeBytes - std::min(heap.sizeBytes, *heap.budgetBytes);
            }
        }
        if (!any) {
            return makeError("vulkan.no-budget", "no device-local heap with a memory budget");
        }
        return unavailable;
    }

  private:
    std::shared_ptr<VulkanProbe> m_vulkan;
    std::size_t m_vulkanIndex;
    std::string m_label;
    std::size_t m_gpuIndex;
};

} // namespace

std::unique_ptr<DeviceMemoryReader> makeAmdgpuReader(std::filesystem::path deviceDir, AmdgpuPool pool,
                                                     std::string label, std::size_t gpuIndex) {
    const char* file = pool == AmdgpuPool::Vram ? "mem_info_vram_used" : "mem_info_gtt_used";
    return std::make_unique<AmdgpuReader>(deviceDir / file, std::move(label), gpuIndex);
}

std::vector<std::unique_ptr<DeviceMemoryReader>> makeDeviceMemoryReaders(const DeviceProbeResult& probe) {
    const std::vector<GpuInfo>& gpus = probe.inventory.gpus;
    std::vector<std::unique_ptr<DeviceMemoryReader>> readers;
    for (std::size_t gpu = 0; gpu < gpus.size(); ++gpu) {
        const std::string& name = gpus[gpu].name;
        bool covered = false;
        for (std::size_t card = 0; card < probe.amdgpuCards.size() && card < probe.amdgpuGpuIndex.size();
             ++card) {
            if (probe.amdgpuGpuIndex[card] != gpu) {
                continue;
            }
            const AmdgpuCard& amdgpu = probe.amdgpuCards[card];
            readers.push_back(makeAmdgpuReader(amdgpu.deviceDir, AmdgpuPool::Vram,
                                               name + ": VRAM used (amdgpu sysfs)", gpu));
            readers.push_back(
                makeAmdgpuReader(amdgpu.deviceDir, AmdgpuPool::Gtt, name + ": GTT used (amdgpu sysfs)", gpu));
            covered = true;
        }
        for (std::size_t device = 0; !covered && probe.nvml && device < probe.nvmlGpuIndex.size(); ++device) {
            if (probe.nvmlGpuIndex[device] == gpu) {
                readers.push_back(
                    std::make_unique<NvmlReader>(probe.nvml, device, name + ": used (NVML)", gpu));
                covered = true;
            }
        }
        // Vulkan devices are the first entries of the inventory, in the probe's order.
        if (!covered && probe.vulkan && gpu < probe.vulkan->devices().size() && gpus[gpu].memoryBudget) {
            readers.push_back(std::make_unique<VulkanBudgetReader>(
                probe.vulkan, gpu, name + ": device-local heaps not in budget (Vulkan)", gpu));
        }
    }
    return readers;
}

} // namespace llamafit
