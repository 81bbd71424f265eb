#pragma once
// Throughput of a running llama-server from two successive monitor samples, and the
// `print_timing` lines of its log. Used by the monitor (core/system ServerProbe) to feed
// the tokens/s charts and by `llamafit-cli launch`'s status line. Pure functions:
// timestamps come in from the caller (seconds on a monotonic clock), no clock is read here.
//
// Why deltas and not the gauges: llamacpp:predicted_tokens_seconds / prompt_tokens_seconds
// average only the requests finished since the previous /metrics call and reset on every
// call, and the *_total token counters move only when a request finishes (see
// prometheusmetrics.h). What moves live is /slots `n_decoded` per slot and
// llamacpp:n_decode_total, so the live rate is built from their deltas; the *_total
// counters give the average speed of the requests that finished in the interval.
//
// Units: tokens per second; times in seconds (samples) or milliseconds (log lines, as printed).
//
// Error codes: server.bad-interval (the second sample is not later than the first).

#include "core/common/result.h"
#include "core/server/prometheusmetrics.h"
#include "core/server/slotsjson.h"

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace llamafit {

struct SlotThroughput {
    std::int32_t id = 0;
    double tokensPerSecond = 0;
    // A new request began on the slot between the samples (task id changed or n_decoded
    // went down): only the new request's tokens are counted, so the rate is a lower bound.
    bool restarted = false;
    // The request ended between the samples (rate 0: its last tokens are not in /slots).
    bool finished = false;
    bool operator==(const SlotThroughput&) const = default;
};

// Per slot, matched by id (a slot missing from either sample is left out). n_decoded is
// exact per slot and moves with every generated token.
Result<std::vector<SlotThroughput>> slotThroughput(const std::vector<SlotState>& before, double beforeSeconds,
                                                   const std::vector<SlotState>& after, double afterSeconds);

struct TotalThroughput {
    double decodeCallsPerSecond = 0; // Δ n_decode_total / Δt
    // Tokens decoded by all slots together per second: Δ(n_decode_total x n_busy_slots_per_decode)
    // / Δt. The gauge is the average busy slots per decode since start, so the product is the
    // running count of slot-steps (llama.cpp tools/server/server-context.cpp: n_busy_slots_total
    // / n_decode_total); its delta is exact over the interval, to the gauge's 6 printed digits.
    double decodedTokensPerSecond = 0;
    // Average generation / prompt speed of the requests that FINISHED in the interval
    // (Δ tokens_predicted_total / Δ tokens_predicted_seconds_total, likewise for prompts);
    // nullopt when none finished. The counters include each request's first token, which
    // llama.cpp's own rates leave out (it comes free with the prompt's logits: tools/server
    // n_gen_steps = n_gen - 1), so this reads higher by one token per finished request.
    std::optional<double> finishedGenerationTokensPerSecond;
    std::optional<double> finishedPromptTokensPerSecond;
    // A counter went down: the server restarted between the samples. Deltas then count from
    // zero (the Prometheus rate() convention), so rates are lower bounds.
    bool counterReset = false;
    bool operator==(const TotalThroughput&) const = default;
};

Result<TotalThroughput> totalThroughput(const ServerMetrics& before, double beforeSeconds,
                                        const ServerMetrics& after, double afterSeconds);

// The whole run so far, from one /metrics sample: llama-server's *_total counters only grow
// while it lives, so a burst that starts and ends between two polls (a 0.1 s completion under a
// 2 Hz monitor) is still counted here, where the per-interval rates above miss it.
struct RunTotals {
    std::uint64_t generatedTokens = 0; // llamacpp:tokens_predicted_total (finished requests)
    std::uint64_t promptTokens = 0;    // llamacpp:prompt_tokens_total (not counting cached tokens)
    // Average speeds over the time the server spent generating / reading prompts (not wall time);
    // nullopt before the first request finished.
    std::optional<double> generationTokensPerSecond;
    std::optional<double> promptTokensPerSecond;
    bool operator==(const RunTotals&) const = default;
};

RunTotals runTotals(const ServerMetrics& metrics);

// One `print_timing` line of llama-server (tools/server/server-context.cpp, slot
// print_timing), with or without the --log-prefix/--log-timestamps prefix:
//   slot print_timing: id  0 | task 2 | n_gen =    100, tg =   9.14 t/s, tg_3s =   9.23 t/s
//   slot print_timing: id  0 | task 2 | prompt eval time =  511.01 ms /  17 tokens ( 30.06 ms per
//   token,  33.27 tokens per second) slot print_timing: id  0 | task 2 |        eval time = 12478.43 ms / 400
//   tokens ( ... tokens per second) slot print_timing: id  0 | task 2 |       total time = 12989.44 ms / 417
//   tokens
struct TimingLine {
    enum class Kind { Progress, PromptEval, Eval, Total };
    Kind kind = Kind::Progress;
    std::int32_t slot = 0;
    std::int64_t task = 0;
    std::uint32_t tokens = 0;   // n_gen for Progress
    double milliseconds = 0;    // 0 for Progress
    double tokensPerSecond = 0; // as printed: tg for Progress; (tokens - 1) / time for Eval; 0 for Total
    std::optional<double> recentTokensPerSecond; // tg_3s of a Progress line
    bool operator==(const TimingLine&) const = default;
};

std::optional<TimingLine> parseTimingLine(std::string_view line);
// Every timing line of a log, in order.
std::vector<TimingLine> parseTimingLines(std::string_view log);

} // namespace llamafit
