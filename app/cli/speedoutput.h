#pragma once
// The speed model's figures in `plan`, `estimate` and `bench` output (core/machine/speedmodel.h).
// JSON (STABLE, fields only added): speed{decode_tps_bound, decode_tps_expected,
// prompt_tps_expected (null without an FP16 figure), decode_efficiency, prompt_efficiency,
// filled_tokens, source ("public-defaults", "benchmarks", "live-runs", "benchmarks+live-runs" or
// "no-bandwidth"), source_detail}.

#include "app/cli/commandline.h"
#include "app/cli/jsonoutput.h"
#include "core/machine/speedmodel.h"

#include <optional>
#include <ostream>
#include <string>

namespace llamafit {

// --bandwidth-gbs / --fp16-tflops style options: nullopt when absent, cli.bad-value unless a
// positive number.
Result<std::optional<double>> positiveNumberOption(const CliOptions& options, const char* name);

// `why` says what is missing when there is no prediction ("no bandwidth figure for ...").
Json speedJson(const std::optional<SpeedPrediction>& prediction, std::uint32_t filledTokens,
               const std::string& why = {});
void printSpeedText(std::ostream& out, const std::optional<SpeedPrediction>& prediction,
                    std::uint32_t filledTokens, const std::string& why = {});

} // namespace llamafit
