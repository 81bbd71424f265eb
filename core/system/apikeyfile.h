#pragma once
// The API key LlamaFit gives a llama-server that listens beyond this computer
// (core/server/exposure.h): generated once, kept in a file only the user can read, passed to
// llama-server as --api-key-file and sent by the monitor as "Authorization: Bearer KEY". The
// key itself never goes into an argv, an exported script or a log; they name the file.
//
// POSIX: the file is created with mode 0600 and a looser mode found later is tightened.
// Windows (untested here): the file lives in the user's profile (GenericDataLocation is
// %LOCALAPPDATA%), whose ACL already admits only that user and the system.
//
// Error codes: apikey.write-failed, apikey.read-failed, apikey.empty (a key file without a key).

#include "core/common/result.h"
#include "core/server/exposure.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace llamafit {

// <GenericDataLocation>/LlamaFit/llama-server-api-key: one file for the app and the CLI (next to
// the stored benchmarks, core/system/benchmarkstore.h).
QString defaultApiKeyFilePath();

// The key file at `path`, created with a new random key when it does not exist; its mode is
// made user-only. Returns the key.
Result<std::string> ensureApiKeyFile(const QString& path);

// guardExposure (core/server/exposure.h) with LlamaFit's own key file, which is created when the
// words then name it: what a launch or an export on `host` runs with when the user did or did
// not choose network access.
Result<std::vector<std::string>> prepareExposure(const std::string& host, std::vector<std::string> extraArgs,
                                                 bool networkAccessChosen);

// The key a monitor must send to a server started with `serverArguments`
// (ServerProcess::arguments()): its --api-key, or the first line of its --api-key-file; empty
// when it was started without a key.
Result<std::string> apiKeyOfServer(const QStringList& serverArguments);

} // namespace llamafit
