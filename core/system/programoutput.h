#pragma once
// What a program prints for one set of arguments (stdout and stderr together), run to its end
// with a deadline: how LlamaFit asks a llama-server for its --version, --help and device list
// outside an event loop.
//
// Error codes: probe.not-executable (it does not start), probe.failed (no answer in time; it is
// killed).

#include "core/common/result.h"

#include <QStringList>

#include <chrono>
#include <string>

namespace llamafit {

Result<std::string> programOutput(const std::string& program, const QStringList& args,
                                  std::chrono::milliseconds timeout);

} // namespace llamafit
