// llama.cpp's tools found beside llama-server; see llamatool.h.
#include "core/system/llamatool.h"

#include <QFileInfo>
#include <QStandardPaths>

namespace llamafit {

QString llamaToolProgram(const QString& tool, const char* environmentVariable, const QString& serverProgram) {
    if (const QString fromEnvironment = qEnvironmentVariable(environmentVariable);
        !fromEnvironment.isEmpty()) {
        return fromEnvironment;
    }
    const QString server =
        serverProgram.isEmpty() ? qEnvironmentVariable("LLAMAFIT_LLAMA_SERVER") : serverProgram;
    const QFileInfo serverFile(server);
    if (!server.isEmpty() && (serverFile.isAbsolute() || server.contains(QLatin1Char('/')) ||
                              server.contains(QLatin1Char('\\')))) {
        const QString suffix = serverFile.suffix().compare(QLatin1String("exe"), Qt::CaseInsensitive) == 0
                                   ? QStringLiteral(".exe")
                                   : QString();
        return serverFile.absolutePath() + QLatin1Char('/') + tool + suffix;
    }
    const QString onPath = QStandardPaths::findExecutable(tool);
    return onPath.isEmpty() ? tool : onPath;
}

} // namespace llamafit
