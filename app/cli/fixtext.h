#pragma once
// The CLI's English wording of an allocation failure's diagnosis and fixes (core/server/
// failurefixes.h; the GUI's failure dialog words the same values with tr(), ui/launch/fixtext.h):
// what `llamafit-cli launch` prints after llama-server ran out of memory.

#include "core/server/failurefixes.h"

#include <string>

namespace llamafit {

// "the KV cache (488.31 MiB) did not fit in CPU: the settings need ... there, ... are available."
std::string diagnosisSummary(const FailureDiagnosis& diagnosis);

// "context 65536 → 49152"
std::string fixChange(const FailureFix& fix);

// "Use a context of 49152 tokens instead of 65536 (shorter conversations): CPU then needs ..."
std::string fixSentence(const FailureFix& fix, const FailureDiagnosis& diagnosis);

} // namespace llamafit
