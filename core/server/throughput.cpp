#include "core/server/throughput.h"

#include "core/server/logscanner.h"

#include <algorithm>
#include <string>

namespace llamafit {

namespace {

Error badInterval(double beforeSeconds, double afterSeconds) {
    return makeError("server.bad-interval",
                     "the second sample (t = " + std::to_string(afterSeconds) +
                         " s) is not later than the first (t = " + std::to_string(beforeSeconds) + " s)");
}

// Delta of a counter; a decrease means the server restarted, and the new value is the delta.
double counterDelta(double before, double after, bool& reset) {
    if (after < before) {
        reset = true;
        return after;
    }
    return after - before;
}

} // namespace

Result<std::vector<SlotThroughput>> slotThroughput(const std::vector<SlotState>& before, double beforeSeconds,
                                                   const std::vector<SlotState>& after, double afterSeconds) {
    const double seconds = afterSeconds - beforeSeconds;
    if (!(seconds > 0)) {
        return badInterval(beforeSeconds, afterSeconds);
    }
    std::vector<SlotThroughput> result;
    result.reserve(after.size());
    for (const SlotState& now : after) {
        const SlotState* previous = nullptr;
        for (const SlotState& candidate : before) {
            if (candidate.id == now.id) {
                previous = &candidate;
                break;
            }
        }
        if (previous == nullptr) {
            continue;
        }
        SlotThroughput slot;
        slot.id = now.id;
        // A slot that finished keeps n_decoded of its last request until it is reused in
        // 0.7.0 (captured: 0 after the request, but older builds keep it); an idle slot
        // generated nothing, whatever the counter says.
        const bool sameTask = previous->taskId == now.taskId;
        if (!now.isProcessing && previous->isProcessing) {
            // Finished between the samples: 0.7.0 zeroes n_decoded then, so the tokens since the
            // previous sample are unknown here; the finished-request counters of /metrics carry them.
            slot.finished = true;
        } else if (now.decodedTokens < previous->decodedTokens || (!sameTask && now.isProcessing)) {
            slot.restarted = true;
            slot.tokensPerSecond = now.isProcessing ? static_cast<double>(now.decodedTokens) / seconds : 0;
        } else if (now.isProcessing) {
            slot.tokensPerSecond = static_cast<double>(now.decodedTokens - previous->decodedTokens) / seconds;
        }
        result.push_back(slot);
    }
    return result;
}

Result<TotalThroughput> totalThroughput(const ServerMetrics& before, double beforeSeconds,
                                        const ServerMetrics& after, double afterSeconds) {
    const double seconds = afterSeconds - beforeSeconds;
    if (!(seconds > 0)) {
        return badInterval(beforeSeconds, afterSeconds);
    }
    TotalThroughput total;
    bool reset = false;
    const double decodeCalls = counterDelta(before.decodeCallsTotal, after.decodeCallsTotal, reset);
    total.decodeCallsPerSecond = decodeCalls / seconds;
    const double slotStepsBefore = before.decodeCallsTotal * before.busySlotsPerDecode;
    const double slotStepsAfter = after.decodeCallsTotal * after.busySlotsPerDecode;
    // The gauge has 6 significant digits; a tiny negative delta is rounding, not a reset.
    const double slotSteps = reset ? slotStepsAfter : std::max(0.0, slotStepsAfter - slotStepsBefore);
    total.decodedTokensPerSecond = slotSteps / seconds;

    const double predicted = counterDelta(before.tokensPredictedTotal, after.tokensPredictedTotal, reset);
    const double predictedSeconds =
        counterDelta(before.tokensPredictedSecondsTotal, after.tokensPredictedSecondsTotal, reset);
    if (predicted > 0 && predictedSeconds > 0) {
        total.finishedGenerationTokensPerSecond = predicted / predictedSeconds;
    }
    const double prompt = counterDelta(before.promptTokensTotal, after.promptTokensTotal, reset);
    const double promptSeconds = counterDelta(before.promptSecondsTotal, after.promptSecondsTotal, reset);
    if (prompt > 0 && promptSeconds > 0) {
        total.finishedPromptTokensPerSecond = prompt / promptSeconds;
    }
    total.counterReset = reset;
    return total;
}

RunTotals runTotals(const ServerMetrics& metrics) {
    RunTotals totals;
    totals.generatedTokens = static_cast<std::uint64_t>(std::max(0.0, metrics.tokensPredictedTotal));
    totals.promptTokens = static_cast<std::uint64_t>(std::max(0.0, metrics.promptTokensTotal));
    if (metrics.tokensPredictedTotal > 0 && metrics.tokensPredictedSecondsTotal > 0) {
        totals.generationTokensPerSecond = metrics.tokensPredictedTotal / metrics.tokensPredictedSecondsTotal;
    }
    if (metrics.promptTokensTotal > 0 && metrics.promptSecondsTotal > 0) {
        totals.promptTokensPerSecond = metrics.promptTokensTotal / metrics.promptSecondsTotal;
    }
    return totals;
}

std::optional<TimingLine> parseTimingLine(std::string_view line) {
    std::string_view text = stripLogPrefix(line).text;
    const std::size_t at = text.find("print_timing:");
    if (at == std::string_view::npos) {
        return std::nullopt;
    }
    LogScanner s(text.substr(at));
    TimingLine timing;
    std::int64_t slot = 0;
    if (!(s.literal("print_timing:") && s.literal("id") && s.signedNumber(slot) && s.literal("|") &&
          s.literal("task") && s.signedNumber(timing.task) && s.literal("|"))) {
        return std::nullopt;
    }
    timing.slot = static_cast<std::int32_t>(slot);
    if (s.literal("n_gen =")) {
        double recent = 0;
        if (!(s.unsignedNumber(timing.tokens) && s.literal(", tg =") && s.decimal(timing.tokensPerSecond) &&
              s.literal("t/s"))) {
            return std::nullopt;
        }
        if (s.literal(", tg_3s =") && s.decimal(recent) && s.literal("t/s")) {
            timing.recentTokensPerSecond = recent;
        }
        return timing;
    }
    if (s.literal("prompt eval time =")) {
        timing.kind = TimingLine::Kind::PromptEval;
    } else if (s.literal("eval time =")) {
        timing.kind = TimingLine::Kind::Eval;
    } else if (s.literal("total time =")) {
        timing.kind = TimingLine::Kind::Total;
    } else {
        return std::nullopt; // "graphs reused", "graph reallocs", ...
    }
    if (!(s.decimal(timing.milliseconds) && s.literal("ms /") && s.unsignedNumber(timing.tokens) &&
          s.literal("tokens"))) {
        return std::nullopt;
    }
    if (timing.kind != TimingLine::Kind::Total) {
        double msPerToken = 0;
        if (!(s.literal("(") && s.decimal(msPerToken) && s.literal("ms per token,") &&
              s.decimal(timing.tokensPerSecond) && s.literal("tokens per second)"))) {
            return std::nullopt;
        }
    }
    return timing;
}

std::vector<TimingLine> parseTimingLines(std::string_view log) {
    std::vector<TimingLine> lines;
    while (!log.empty()) {
        const std::size_t newline = log.find('\n');
        std::string_view line = log.substr(0, newline);
        log = newline == std::string_view::npos ? std::string_view{} : log.substr(newline + 1);
        if (!line.empty() && line.back() == '\r') {
            line.remove_suffix(1);
        }
        if (std::optional<TimingLine> timing = parseTimingLine(line)) {
            lines.push_back(*timing);
        }
    }
    return lines;
}

} // namespace llamafit
