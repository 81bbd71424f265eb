// programOutput(); see programoutput.h.

#include "core/system/programoutput.h"

#include <QProcess>

namespace llamafit {

Result<std::string> programOutput(const std::string& program, const QStringList& args,
                                  std::chrono::milliseconds timeout) {
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    process.start(QString::fromStdString(program), args);
    if (!process.waitForStarted(static_cast<int>(timeout.count()))) {
        return makeError("probe.not-executable",
                         program + " does not start: " + process.errorString().toStdString());
    }
    if (!process.waitForFinished(static_cast<int>(timeout.count()))) {
        process.kill();
        process.waitForFinished();
        return makeError("probe.failed", program + " did not answer " +
                                             args.join(QLatin1Char(' ')).toStdString() + " within " +
                                             std::to_string(timeout.count() / 1000) + " s");
    }
    return process.readAll().toStdString();
}

} // namespace llamafit
