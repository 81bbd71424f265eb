#pragma once
// SlotFillTable ("slotFillTable"): one row per llama-server slot from the latest /slots
// sample: slot id, idle or processing, tokens in the slot's context out of its n_ctx, and a
// fill bar ("slotFillBar<id>"). Used by LiveView on its refresh tick.
// Owns: its rows and bars. Thread: GUI thread. Units: tokens.

#include "core/server/slotsjson.h"

#include <QTableWidget>

#include <cstdint>
#include <vector>

namespace llamafit {

class SlotFillTable : public QTableWidget {
    Q_OBJECT
  public:
    enum Column { SlotColumn, StateColumn, TokensColumn, FillColumn, ColumnCount };

    explicit SlotFillTable(QWidget* parent = nullptr);

    // Rows follow `states` (as /slots lists them); rows are reused between samples.
    void setSlots(const std::vector<SlotState>& states);

    // Tokens in the slot's context as /slots tells it: the prompt (cached part included) plus
    // the tokens decoded. Within a token of the cells llama.cpp holds (its "stop processing:
    // n_tokens" line; the last sampled token is not yet in the cache). An idle slot shows its
    // last request as long as /slots keeps reporting it.
    static std::uint64_t contextTokens(const SlotState& slot);
};

} // namespace llamafit
