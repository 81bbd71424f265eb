#pragma once
// Parsers for llama-server's JSON endpoints the monitor polls: /slots (live per-slot
// state), /props (the configuration in effect) and /health (readiness). Used by the
// monitor in core/system (ServerProbe) and by tests on captured 0.7.0 responses. Pure
// functions of the response text, Qt-free.
//
// Shapes accepted: 0.7.0 prints `next_token` as an ARRAY of one object
// ([{has_next_token, has_new_line, n_remain, n_decoded}]); older builds and the server
// README print a bare OBJECT. Both are read. A slot that never ran has no next_token in
// 0.7.0 (n_decoded = 0 then).
//
// Units: token counts; nCtx is per slot (n_ctx_seq), not the whole context.
//
// Error codes: server.bad-json (not JSON, or not the expected shape; the message says
// which field), server.health-unknown (a /health answer that is neither ok nor loading).

#include "core/common/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llamafit {

struct SlotState {
    std::int32_t id = 0;
    std::uint32_t nCtx = 0; // tokens this slot may hold
    bool isProcessing = false;
    std::optional<std::int64_t> taskId;      // id_task, when printed
    std::uint32_t promptTokens = 0;          // n_prompt_tokens
    std::uint32_t promptTokensProcessed = 0; // n_prompt_tokens_processed
    std::uint32_t promptTokensCached = 0;    // n_prompt_tokens_cache
    std::uint64_t decodedTokens = 0;         // next_token n_decoded: grows live, 0 when idle again
    std::int64_t remainingTokens = 0;        // next_token n_remain (-1 = unlimited)
    bool hasNextToken = false;
    bool operator==(const SlotState&) const = default;
};

struct ServerProps {
    std::uint32_t totalSlots = 0;
    std::uint32_t slotContextTokens = 0;      // default_generation_settings.n_ctx (per slot)
    std::string buildInfo;                    // "b11669-Debian"
    std::optional<std::uint32_t> buildNumber; // 11669, from build_info "b<N>..."
    std::string modelPath;
    std::string modelAlias;
    bool endpointSlots = false;
    bool endpointMetrics = false;
    bool isSleeping = false;
    bool operator==(const ServerProps&) const = default;
};

enum class HealthStatus {
    Ready,   // 200 {"status":"ok"}
    Loading, // 503 "Loading model"
};

Result<std::vector<SlotState>> parseSlotsJson(std::string_view text);
Result<ServerProps> parsePropsJson(std::string_view text);
// `httpStatus` as received (200, 503); the body decides when the status is missing (0).
Result<HealthStatus> parseHealth(int httpStatus, std::string_view body);

} // namespace llamafit
