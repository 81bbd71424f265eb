#pragma once
// Windows adapter memory through DXGI: DXGI_ADAPTER_DESC1 (dedicated video memory = the
// carve-out on an APU, shared system memory = Windows' "shared GPU memory", about half of
// RAM) and, with IDXGIAdapter3, the local segment's budget and usage.
// UNTESTED: dxgiprobe.cpp is written against Microsoft's documented DXGI API and is compiled
// only on Windows (core/system/CMakeLists.txt adds it under if(WIN32), and deviceprobe calls
// it under #ifdef _WIN32); the Linux development machines and CI never build or run it.
// Used by deviceprobe. Units: bytes.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"

#include <cstdint>
#include <string>
#include <vector>

namespace llamafit {

struct DxgiAdapter {
    std::string name;           // DXGI_ADAPTER_DESC1::Description, UTF-8
    std::uint32_t vendorId = 0; // PCI ids, as Vulkan reports them
    std::uint32_t deviceId = 0;
    bool software = false; // DXGI_ADAPTER_FLAG_SOFTWARE: the Microsoft Basic Render Driver
    DxgiMemory memory;
    bool operator==(const DxgiAdapter&) const = default;
};

#ifdef _WIN32
// Every adapter IDXGIFactory1 enumerates. Error "dxgi.factory-failed" / "dxgi.enum-failed".
Result<std::vector<DxgiAdapter>> probeDxgiAdapters();
#endif

} // namespace llamafit
