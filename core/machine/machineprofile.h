#pragma once
// Machine profiles: a Machine (memorypools.h) as JSON, so a user can plan for a machine they
// are not sitting at (the seed's user drives the server from a VPS), save the detected one, and
// choose among built-in ones. Used by `llamafit-cli machines` / `plan --machine` and the GUI.
//
// Format (version 1; MiB values may be fractional, bandwidth is decimal GB/s as vendors quote it):
//   { "format": "llamafit-machine", "version": 1, "id": "...", "name": "...",
//     "os": "linux|windows|macos|unknown", "cpu": "..." (optional),
//     -- either an APU in short form --
//     "apu": { "gpu": "Radeon 8060S", "backend": "vulkan", "physical_mib": 65536, "carve_out_mib": 32768,
//              "os_use_mib": 13312, "desktop_vram_mib": 800, "gtt_limit_mib": 0 (optional),
//              "gpu_uses_shared_memory": false (optional),
//              "offered_carve_out_mib": [...] and "offered_source": "..." (optional: the known list
//              for the CPU/GPU family, carveoutchoices.h), "max_storage_buffer_range_bytes" and
//              "max_allocation_bytes" (optional: the GPU's device limits) },
//     -- or explicit pools (what saveMachineProfile writes) --
//     "pools": [ {"name", "kind": "discrete-vram|apu-carve-out|host-ram|apu-shared",
//                 "capacity_mib": N or null (unknown), "reserved_mib": N, "shares_with": index or null} ],
//     "host_pool": index, "gpus": [ {"name": "CUDA0", "model", "backend", "integrated", "pool": index,
//                                     "max_storage_buffer_range_bytes", "max_allocation_bytes" (optional:
//                                     the device limits of serversettings.h DeviceLimits)} ],
//     "bios_split": {"physical_mib", "carve_out_mib", "offered_carve_out_mib": [...], "offered_source"}
//     (optional), "gtt_limit_mib": N (optional),
//     -- both --
//     "bandwidth_gb_s": 256 (optional), "bandwidth_source": "...", "observed_backend_free_mib": N (optional),
//     "sources": ["..."], "notes": ["..."] (optional) }
//
// Error codes: machine.bad-json (not JSON, wrong type, unknown field), machine.missing-field,
// machine.bad-value (an index out of range, a negative size, an unknown kind/os/backend, a wrong
// format/version), machine.unknown-profile, machine.unreadable, machine.unwritable.

#include "core/common/result.h"
#include "core/machine/deviceinfo.h"
#include "core/machine/memorypools.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

Result<Machine> parseMachineProfile(std::string_view json);
std::string machineProfileJson(const Machine& machine); // explicit form; parse(json(m)) == m

Result<Machine> loadMachineProfile(const std::string& path);
Result<bool> saveMachineProfile(const Machine& machine, const std::string& path);

// The built-in profiles, compiled in from resources/machines/*.json.
const std::vector<Machine>& builtinMachines();
Result<Machine> findBuiltinMachine(std::string_view id);
const std::vector<Error>& builtinMachineErrors(); // empty in a good build (tests check it)
std::string_view defaultMachineId();              // the seed's GMKtec EVO-X2 at 32/32

// A built-in id, or else a profile file path.
Result<Machine> resolveMachine(const std::string& idOrPath);

// The machine the app starts on: the detected one when discovery found a GPU, else the EVO-X2
// profile (the seed's machine), so a first-time user sees a meaningful plan either way.
Machine chooseStartMachine(const std::optional<MachineInventory>& detected);

} // namespace llamafit
