#include "core/server/logformats.h"

#include <vector>

namespace llamafit::logformats {

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}
bool endsWith(std::string_view text, std::string_view suffix) {
    return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}
bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

// "<BUF> <what> buffer size = <X> MiB" -- llama.cpp prints the name right-aligned (%10s/%12s).
bool bufferLine(LogScanner s, std::string_view what, std::string& buffer, double& mib) {
    return s.word(buffer) && s.literal(what) && s.literal("buffer size =") && s.decimal(mib) &&
           s.literal("MiB");
}

// llama.cpp src/llama-kv-cache.cpp:
// "size = %7.2f MiB (%6u cells, %3d layers, %2u/%u seqs), K (%s): %7.2f MiB, V (%s): %7.2f MiB"
bool kvSizeLine(LogScanner s, LoggedKvCache& kv) {
    return s.literal("size =") && s.decimal(kv.sizeMiB) && s.literal("MiB (") && s.unsignedNumber(kv.cells) &&
           s.literal("cells,") && s.unsignedNumber(kv.layers) && s.literal("layers,") &&
           s.unsignedNumber(kv.seqMax) && s.literal("/") && s.unsignedNumber(kv.streams) &&
           s.literal("seqs), K (") && s.word(kv.typeK, ')') && s.literal("):") && s.decimal(kv.kMiB) &&
           s.literal("MiB, V (") && s.word(kv.typeV, ')') && s.literal("):") && s.decimal(kv.vMiB) &&
           s.literal("MiB");
}

// llama.cpp src/llama-memory-recurrent.cpp (b11669 adds the P column; builds before the n_rs_seq
// change of 2026 print "%2u seqs), R" without the rs_seq count):
// "size = %7.2f MiB (%6u cells, %3d layers, %2u seqs %2u rs_seq), R (%s): %7.2f MiB, S (%s): %7.2f MiB[, P
// (%s): %7.2f MiB]"
bool rsSizeLine(LogScanner s, LoggedRecurrentState& rs) {
    const bool head = s.literal("size =") && s.decimal(rs.sizeMiB) && s.literal("MiB (") &&
                      s.unsignedNumber(rs.cells) && s.literal("cells,") && s.unsignedNumber(rs.layers) &&
                      s.literal("layers,") && s.unsignedNumber(rs.seqMax) && s.literal("seqs");
    const bool seqs =
        head && (s.literal("), R (") || (s.unsignedNumber(rs.rsSeq) && s.literal("rs_seq), R (")));
    const bool ok = seqs && s.word(rs.typeR, ')') && s.literal("):") && s.decimal(rs.rMiB) &&
                    s.literal("MiB, S (") && s.word(rs.typeS, ')') && s.literal("):") && s.decimal(rs.sMiB) &&
                    s.literal("MiB");
    if (!ok) {
        return false;
    }
    if (s.literal(", P (")) {
        return s.word(rs.typeP, ')') && s.literal("):") && s.decimal(rs.pMiB) && s.literal("MiB");
    }
    return true;
}

// One row of common/fit.cpp common_memory_breakdown_print: "|   - NAME | numbers |".
// Device rows: "total = free + (self = model + context + compute) + unaccounted" (7 numbers);
// host and buffer-type rows: "self = model + context + compute" (4 numbers).
bool breakdownRow(std::string_view text, MemoryBreakdownRow& row) {
    const auto dash = text.find("- ");
    const auto bar = text.find('|', dash == std::string_view::npos ? 0 : dash);
    if (dash == std::string_view::npos || bar == std::string_view::npos) {
        return false;
    }
    std::string_view name = text.substr(dash + 2, bar - dash - 2);
    while (!name.empty() && name.back() == ' ') {
        name.remove_suffix(1);
    }
    row.name = std::string(name);
    std::vector<std::int64_t> numbers;
    LogScanner s(text.substr(bar + 1));
    while (true) {
        s.skipSpaces();
        if (s.atEnd()) {
            break;
        }
        std::int64_t value = 0;
        if (s.signedNumber(value)) {
            numbers.push_back(value);
        } else if (std::string_view("=+()|").find(s.rest().front()) != std::string_view::npos) {
            s.literal(s.rest().substr(0, 1));
        } else {
            return false;
        }
    }
    if (numbers.size() == 7) {
        row.totalMiB = numbers[0];
        row.freeMiB = numbers[1];
        row.unaccountedMiB = numbers[6];
        numbers = {numbers[2], numbers[3], numbers[4], numbers[5]};
    }
    if (numbers.size() != 4) {
        return false;
    }
    row.selfMiB = numbers[0];
    row.modelMiB = numbers[1];
    row.contextMiB = numbers[2];
    row.computeMiB = numbers[3];
    return true;
}

// "llama_context: <key> = <value>" lines printed by the llama_context constructor
// (src/llama-context.cpp); the first known key creates the context.
void contextValue(std::string_view text, std::optional<LoggedContext>& context) {
    LogScanner s(text);
    std::string key;
    std::string value;
    if (!s.word(key) || !s.literal("=") || !s.word(value)) {
        return;
    }
    std::uint32_t number = 0;
    const bool isNumber = LogScanner(value).unsignedNumber(number);
    const auto target = [&]() -> LoggedContext& { return context ? *context : context.emplace(); };
    if (key == "flash_attn") {
        target().flashAttnRequested = value;
    } else if (key == "kv_unified") {
        target().kvUnified = value == "true";
    } else if (!isNumber) {
        return;
    } else if (key == "n_ctx") {
        target().nCtx = number;
    } else if (key == "n_ctx_seq") {
        target().nCtxSeq = number;
    } else if (key == "n_seq_max") {
        target().nSeqMax = number;
    } else if (key == "n_batch") {
        target().nBatch = number;
    } else if (key == "n_ubatch") {
        target().nUbatch = number;
    } else if (key == "n_rs_seq") {
        target().nRsSeq = number;
    } else if (key == "n_outputs_max") {
        target().nOutputsMax = number;
    }
}

} // namespace llamafit::logformats
