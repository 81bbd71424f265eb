#pragma once
// The failure dialog's wording of an allocation failure's diagnosis and fixes
// (core/server/failurefixes.h), translated with tr() (context "FixText"). The CLI words the same
// values in English (app/cli/fixtext.h).

#include "core/server/failurefixes.h"

#include <QString>

namespace llamafit {

// "the KV cache (488.31 MiB) did not fit in CPU: the settings need ... there, ... are available."
QString diagnosisSummaryText(const FailureDiagnosis& diagnosis);

// "context 65536 → 49152": the fix's button.
QString fixChangeText(const FailureFix& fix);

// "Use a context of 49152 tokens instead of 65536 (shorter conversations): CPU then needs ...":
// the fix's tooltip.
QString fixSentenceText(const FailureFix& fix, const FailureDiagnosis& diagnosis);

} // namespace llamafit
