#pragma once
// keepFreedHeapForReuse: asks the C library to keep freed memory for the process instead of handing
// it back to the kernel at once. Each estimate of the sizing engine (core/sizing/computeengine.h)
// builds and drops a few MB of graph; glibc's default trims that from the heap after every estimate,
// and the next one faults every page in again: ten times slower (BM_EstimateEngine, 5.8 ms against
// 0.59 ms per Llama-3-8B estimate on the CPU). Called once at start by the app and the CLI. A no-op
// where the C library is not glibc (Windows' heap keeps freed blocks).

namespace llamafit {

void keepFreedHeapForReuse();

} // namespace llamafit
