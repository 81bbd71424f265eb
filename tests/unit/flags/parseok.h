#pragma once
// The flag tests' parse of a command line that must succeed: the error, if any, fails the test
// where it is called and an empty result goes on.

#include "core/flags/serverargs.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llamafit::test {

inline ParsedServerArgs parseOk(const std::vector<std::string>& args) {
    Result<ParsedServerArgs> parsed = parseServerArgs(args);
    EXPECT_TRUE(parsed.ok()) << (parsed.ok() ? "" : parsed.error().code + ": " + parsed.error().message);
    return parsed.ok() ? *parsed : ParsedServerArgs{};
}

} // namespace llamafit::test
