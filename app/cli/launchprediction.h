#pragma once
// What `llamafit-cli launch` predicts for the server it starts, to print next to the buffers the
// server logs: the estimate for the same flags on the devices the server will use. Those are the
// ones --gpu names and the --rpc servers; without --gpu (and without -dev), the GPUs the chosen
// llama-server lists (--list-devices of that build), each with the memory it reports free, which
// llama.cpp's default split goes by. --rpc servers without =FREE_MiB are asked the same way, in
// the same listing.

#include "core/flags/serverargs.h"
#include "core/sizing/memoryestimate.h"
#include "core/sizing/sizingmodel.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace llamafit {

struct Prediction {
    SizingModel model;
    ServerSettings settings;
    std::vector<GpuDevice> gpus;
    MemoryEstimate estimate;
    std::uint32_t llamaBuild = 0; // the build it is sized for (core/sizing/llamabuild.h)
};

// The prediction for `parsed` served by `server` (the build that will run, whose build number its
// --version gives; the reference build, with a note on `err`, when it gives none); nothing when
// the model cannot be read or sized, or an RPC server cannot be asked (the reason on `err`): the
// launch goes on without it. Notes on `err` say which listed GPUs it is for.
std::optional<Prediction> predict(ParsedServerArgs parsed, const std::string& server, std::ostream& err);

} // namespace llamafit
