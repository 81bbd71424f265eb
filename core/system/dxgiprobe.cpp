// DXGI adapter memory (see dxgiprobe.h). UNTESTED: written against the documented API
// (dxgi.h CreateDXGIFactory1 / IDXGIFactory1::EnumAdapters1 / IDXGIAdapter1::GetDesc1,
// dxgi1_4.h IDXGIAdapter3::QueryVideoMemoryInfo) and built only on Windows.

#include "core/system/dxgiprobe.h"

#ifdef _WIN32

// windows.h first (kept apart so include sorting cannot swap them).
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <dxgi1_4.h>

#include <cstdio>

namespace llamafit {

namespace {

std::string utf8(const wchar_t* text) {
    const int bytes = WideCharToMultiByte(CP_UTF8, 0, text, -1, nullptr, 0, nullptr, nullptr);
    if (bytes <= 1) {
        return {};
    }
    std::string result(static_cast<std::size_t>(bytes - 1), '\0');
    WideCharToMultiByte(CP_UTF8, 0, text, -1, result.data(), bytes, nullptr, nullptr);
    return result;
}

std::string hresultText(HRESULT result) {
    char text[16];
    std::snprintf(text, sizeof text, "0x%08lx", static_cast<unsigned long>(result));
    return text;
}

// Releases a COM pointer when the scope ends.
template <typename T> struct ComRelease {
    T* pointer = nullptr;
    ~ComRelease() {
        if (pointer != nullptr) {
            pointer->Release();
        }
    }
};

} // namespace

Result<std::vector<DxgiAdapter>> probeDxgiAdapters() {
    ComRelease<IDXGIFactory1> factory;
    if (const HRESULT result = CreateDXGIFactory1(IID_PPV_ARGS(&factory.pointer)); FAILED(result)) {
        return makeError("dxgi.factory-failed",
                         "CreateDXGIFactory1 failed with HRESULT " + hresultText(result));
    }
    std::vector<DxgiAdapter> adapters;
    for (UINT index = 0;; ++index) {
        ComRelease<IDXGIAdapter1> adapter;
        const HRESULT result = factory.pointer->EnumAdapters1(index, &adapter.pointer);
        if (result == DXGI_ERROR_NOT_FOUND) {
            break;
        }
        if (FAILED(result)) {
            return makeError("dxgi.enum-failed", "EnumAdapters1(" + std::to_string(index) +
                                                     ") failed with HRESULT " + hresultText(result));
        }
        DXGI_ADAPTER_DESC1 desc{};
        if (FAILED(adapter.pointer->GetDesc1(&desc))) {
            continue;
        }
        DxgiAdapter info;
        info.name = utf8(desc.Description);
        info.vendorId = desc.VendorId;
        info.deviceId = desc.DeviceId;
        info.software = (desc.Flags & DXGI_ADAPTER_FLAG_SOFTWARE) != 0;
        info.memory.dedicatedVideoBytes = desc.DedicatedVideoMemory;
        info.memory.dedicatedSystemBytes = desc.DedicatedSystemMemory;
        info.memory.sharedSystemBytes = desc.SharedSystemMemory;
        // IDXGIAdapter3 exists from Windows 10; older systems simply have no budget figure.
        ComRelease<IDXGIAdapter3> adapter3;
        if (SUCCEEDED(adapter.pointer->QueryInterface(IID_PPV_ARGS(&adapter3.pointer)))) {
            DXGI_QUERY_VIDEO_MEMORY_INFO local{};
            if (SUCCEEDED(
                    adapter3.pointer->QueryVideoMemoryInfo(0, DXGI_MEMORY_SEGMENT_GROUP_LOCAL, &local))) {
                info.memory.localBudgetBytes = local.Budget;
                info.memory.localUsageBytes = local.CurrentUsage;
            }
        }
        adapters.push_back(std::move(info));
    }
    return adapters;
}

} // namespace llamafit

#endif // _WIN32
