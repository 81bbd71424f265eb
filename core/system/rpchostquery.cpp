// queryListedDevices(); see rpchostquery.h.

#include "core/system/rpchostquery.h"

#include "core/sizing/rpcdevices.h"

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTcpSocket>

namespace llamafit {

Result<std::vector<ListedDevice>> queryListedDevices(const RpcHostQuery& query) {
    std::string list;
    for (const std::string& endpoint : query.endpoints) {
        if (Result<bool> valid = checkRpcEndpoint(endpoint); !valid) {
            return makeError("rpc.bad-endpoint", valid.error().message);
        }
        list += (list.empty() ? "" : ",") + endpoint;
    }
    QStringList arguments;
    if (!list.empty()) {
        // Before --list-devices: llama.cpp lists the devices as it parses that flag.
        arguments << QStringLiteral("--rpc") << QString::fromStdString(list);
    }
    arguments << QStringLiteral("--list-devices");
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QString::fromStdString(query.llamaServer), arguments);
    if (!process.waitForStarted()) {
        return makeError("rpc.no-server",
                         "could not start " + query.llamaServer + ": " + process.errorString().toStdString());
    }
    if (!process.waitForFinished(static_cast<int>(query.timeout.count()))) {
        process.kill();
        process.waitForFinished();
        return makeError("rpc.timeout", query.llamaServer + " --rpc " + list +
                                            " --list-devices did not answer within " +
                                            std::to_string(query.timeout.count() / 1000) + " s");
    }
    const std::string output = process.readAll().toStdString();
    // An unreachable server aborts llama-server (a crash, or an exit after the abort handler).
    if (std::optional<Error> failure = rpcFailureOf(output)) {
        return *failure;
    }
    return parseDeviceList(output);
}

std::optional<std::string> firstSilentEndpoint(const std::vector<std::string>& endpoints,
                                               std::chrono::milliseconds timeout) {
    for (const std::string& endpoint : endpoints) {
        const std::size_t colon = endpoint.rfind(':');
        if (colon == std::string::npos) {
            return endpoint;
        }
        QTcpSocket socket;
        socket.connectToHost(QString::fromStdString(endpoint.substr(0, colon)),
                             static_cast<quint16>(std::stoul(endpoint.substr(colon + 1))));
        const bool answered = socket.waitForConnected(static_cast<int>(timeout.count()));
        socket.abort();
        if (!answered) {
            return endpoint;
        }
    }
    return std::nullopt;
}

} // namespace llamafit
