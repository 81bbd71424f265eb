#pragma once
// One temporary folder per test process for the sparse model files the integration tests
// write (mkdtemp under $TMPDIR or /tmp), removed when the process's tests end. Test support only.

#include <string>

namespace llamafit::test {

// Created on first use; ASSERT on the empty string (the message is in `error`).
const std::string& scratchDirectory(std::string& error);

} // namespace llamafit::test
