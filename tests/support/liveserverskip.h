#pragma once
// LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER(): the first statement of every test (or fixture SetUp)
// that runs the real llama-server. Where scripts/fetch-llama-server.sh could not fetch the
// pinned build (it left DEST/UNAVAILABLE: the archive has moved on, no network), the test
// reports "skipped" with that reason instead of failing; the recorded runs
// (tests/unit/recorded) still check the sizing then. Test support only.

#include "tests/support/llamaserverrun.h"

#include <gtest/gtest.h>

// Stable text: scripts/test.sh counts skips by it.
#define LLAMAFIT_LIVE_SERVER_SKIP_TEXT "live llama-server unavailable: "

// GTEST_SKIP returns from the function it is in: inside a helper, the caller must check
// IsSkipped() (or use the macro in the test body or SetUp, as every user here does).
#define LLAMAFIT_SKIP_WITHOUT_LIVE_SERVER()                                                                  \
    if (const auto llamafitUnavailable = ::llamafit::test::liveServerUnavailableReason())                    \
    GTEST_SKIP() << LLAMAFIT_LIVE_SERVER_SKIP_TEXT << *llamafitUnavailable
