// glibc's heap thresholds; see heaptuning.h.
#include "core/system/heaptuning.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace llamafit {

void keepFreedHeapForReuse() {
#if defined(__GLIBC__)
    // mallopt(3): blocks up to 64 MiB come from the heap rather than their own mappings, the heap's
    // free top is trimmed only past 256 MiB, and each growth takes 16 MiB more than asked.
    constexpr int kMiB = 1 << 20;
    mallopt(M_MMAP_THRESHOLD, 64 * kMiB);
    mallopt(M_TRIM_THRESHOLD, 256 * kMiB);
    mallopt(M_TOP_PAD, 16 * kMiB);
#endif
}

} // namespace llamafit
