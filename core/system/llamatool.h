#pragma once
// Where a llama.cpp tool other than llama-server is found: llama.cpp ships its programs in one
// folder ("llama-bench.exe" and "ggml-rpc-server.exe" beside "llama-server.exe" on Windows; the
// same bin/ of a Linux build), so the tool beside the llama-server the user chose is the one of
// the same build -- which matters for ggml-rpc-server, whose protocol must match the client's.
// Thread: any. Reads the environment and the PATH.

#include <QString>

namespace llamafit {

// `environmentVariable` when set; else `tool` next to `serverProgram` (or next to
// $LLAMAFIT_LLAMA_SERVER when `serverProgram` is empty) when that names a path, with ".exe" when
// it has one; else `tool` on the PATH; else the bare name (the start then fails with its name).
QString llamaToolProgram(const QString& tool, const char* environmentVariable, const QString& serverProgram);

} // namespace llamafit
