#pragma once
// ServerMetrics: one scrape of llama-server's `/metrics` (Prometheus text format), with the
// llamacpp:* names of llama-server 0.7.0 (tools/server/server-context.cpp, `--metrics`).
// Used by the monitor (core/system ServerProbe) and the throughput functions
// (throughput.h). Pure parsing, no I/O, Qt-free.
//
// Units: token counts are plain numbers, *Seconds are seconds, *PerSecond tokens/s.
//
// Why the *_tokens_seconds gauges are kept but never charted: in 0.7.0 they average only
// the requests that FINISHED since the previous /metrics call, and each call resets that
// bucket (verified: a second scrape right after a request reads 0). A chart of them is
// zero while a request runs, spikes when it ends, and two scrapers (Prometheus plus
// LlamaFit) steal each other's values. The token/time counters (*_total) are likewise
// added only when a request finishes. Live throughput therefore comes from deltas of
// /slots n_decoded per slot and of n_decode_total, which move with every llama_decode()
// call (see throughput.h).
//
// Error codes: server.bad-metrics (a sample line whose value is not a number; the message
// quotes the line).

#include "core/common/result.h"

#include <map>
#include <string>
#include <string_view>

namespace llamafit {

struct ServerMetrics {
    // Counters (monotonic while the server lives; a restart resets them).
    double promptTokensTotal = 0;           // llamacpp:prompt_tokens_total (excludes cached tokens)
    double promptTokensCachedTotal = 0;     // llamacpp:prompt_tokens_cached_total (0.7.0 only)
    double promptSecondsTotal = 0;          // llamacpp:prompt_seconds_total
    double tokensPredictedTotal = 0;        // llamacpp:tokens_predicted_total
    double tokensPredictedSecondsTotal = 0; // llamacpp:tokens_predicted_seconds_total
    double decodeCallsTotal = 0;            // llamacpp:n_decode_total: moves live, per llama_decode() call
    double tokensMax = 0;                   // llamacpp:n_tokens_max (largest prompt + generation seen)
    double draftTokensTotal = 0;            // llamacpp:spec_decode_num_draft_tokens_total
    double draftTokensAcceptedTotal = 0;    // llamacpp:spec_decode_num_accepted_tokens_total
    double draftsTotal = 0;                 // llamacpp:spec_decode_num_drafts_total
    // Gauges.
    double promptTokensPerSecond = 0;    // llamacpp:prompt_tokens_seconds (reset per scrape: do not chart)
    double predictedTokensPerSecond = 0; // llamacpp:predicted_tokens_seconds (reset per scrape: do not chart)
    double requestsProcessing = 0;       // llamacpp:requests_processing
    double requestsDeferred = 0;         // llamacpp:requests_deferred
    double busySlotsPerDecode = 0;       // llamacpp:n_busy_slots_per_decode (average since start)
    // Every sample as printed (name with its {labels}), including names this struct does
    // not know, so a newer build's metrics are not lost.
    std::map<std::string, double> samples;
    bool operator==(const ServerMetrics&) const = default;
};

Result<ServerMetrics> parsePrometheusMetrics(std::string_view text);

} // namespace llamafit
