#pragma once
// Value readers and writers for the llama-server flags the flag table turns into
// ServerSettings (numbers, cache types, -ngl, -ts, -ot, -lm, --gpu). Each reader returns
// nullopt on success or an "args.bad-value" Error naming the flag and the value.
// Used by the flag table's readers and writers (settingflags.cpp); units as in ServerSettings.

#include "core/common/result.h"
#include "core/sizing/serversettings.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

Error badValue(std::string_view flag, std::string_view value, std::string_view expected);

// The parts of `text` between any of `separators` ("a,b" -> {"a", "b"}; "" -> {""}).
std::vector<std::string_view> split(std::string_view text, std::string_view separators);

std::optional<Error> readUint32(std::string_view flag, std::string_view value, std::uint32_t& out);
std::optional<Error> readUint32(std::string_view flag, std::string_view value,
                                std::optional<std::uint32_t>& out);
std::optional<Error> readInt32(std::string_view flag, std::string_view value, std::int32_t& out);
// A pass-through value llama-server reads with std::stoi (-t, -tb, -n, ...): leading blanks and a
// sign, then digits within int; what follows the digits is ignored, as std::stoi ignores it.
std::optional<Error> checkStoiInteger(std::string_view flag, std::string_view value);
// -np: N > 0, or a negative number for "auto" (nullopt); 0 is refused like llama.cpp does.
std::optional<Error> readSlotCount(std::string_view flag, std::string_view value,
                                   std::optional<std::uint32_t>& out);
std::optional<Error> readCacheType(std::string_view flag, std::string_view value, GgmlType& out);
// -ngl: an integer, "auto" or "all" (GpuLayers::fromText).
std::optional<Error> readGpuLayers(std::string_view flag, std::string_view value,
                                   std::optional<GpuLayers>& out);
std::optional<Error> readTensorSplit(std::string_view flag, std::string_view value, std::vector<double>& out);
std::optional<Error> readTensorOverrides(std::string_view flag, std::string_view value,
                                         std::vector<TensorOverride>& out);
std::optional<Error> readLoadMode(std::string_view flag, std::string_view value, LoadMode& out,
                                  std::vector<std::string>& notes);
// --rpc host:port,...: appends the endpoints to `servers` (each one host:port, none twice).
std::optional<Error> readRpcServers(std::string_view flag, std::string_view value,
                                    std::vector<std::string>& servers);
// --gpu [BACKEND:]NAME=MiB or BACKEND=MiB; appends to `gpus` (the name must be new). An RPC
// server's device is rpc:HOST:PORT=MiB, named like its buffers ("RPC0[HOST:PORT]").
std::optional<Error> readGpu(std::string_view flag, std::string_view value, bool integrated,
                             std::vector<GpuDevice>& gpus);

// on/enabled/true/1, off/disabled/false/0, auto/-1 (llama.cpp is_truthy / is_falsey / is_autoy).
std::optional<FlashAttention> flashAttentionFromName(std::string_view value);

std::string_view flashAttentionName(FlashAttention mode);
std::string_view loadModeName(LoadMode mode);
std::string tensorSplitText(const std::vector<double>& split);
std::string rpcServersText(const std::vector<std::string>& servers);

} // namespace llamafit
