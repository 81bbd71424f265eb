// Export texts from core/server/exports.h, written to a file the user chose.

#include "ui/launch/launchexport.h"

#include <QCoreApplication>
#include <QFile>
#include <QSaveFile>

namespace llamafit {

Result<std::string> exportText(ExportFormat format, const ExportSpec& spec) {
    switch (format) {
    case ExportFormat::ShellScript:
        return exportShellScript(spec);
    case ExportFormat::BatchFile:
        return exportBatchFile(spec);
    case ExportFormat::PresetIni:
        return exportPresetIni(spec);
    case ExportFormat::LlamaSwap:
        break;
    }
    return exportLlamaSwapYaml(spec);
}

Result<bool> writeExportFile(ExportFormat format, const ExportSpec& spec, const QString& path) {
    Result<std::string> text = exportText(format, spec);
    if (!text) {
        return text.error();
    }
    // QSaveFile: a failed write leaves the old file as it was.
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(text->data(), static_cast<qint64>(text->size())) != static_cast<qint64>(text->size()) ||
        !file.commit()) {
        return makeError("export.write-failed",
                         "cannot write " + path.toStdString() + ": " + file.errorString().toStdString());
    }
    if (format == ExportFormat::ShellScript) {
        QFile::setPermissions(path,
                              QFile::permissions(path) | QFile::ExeOwner | QFile::ExeGroup | QFile::ExeOther);
    }
    return true;
}

namespace {

std::string quoteForShell(const std::string& word) {
#ifdef Q_OS_WIN
    Result<std::string> quoted = quoteBatchArgument(word);
    return quoted ? *quoted : word;
#else
    return quotePosixArgument(word);
#endif
}

} // namespace

QString shellCommandLine(const std::string& program, const std::vector<std::string>& args) {
    std::string line = quoteForShell(program);
    for (const std::string& word : args) {
        line += ' ';
        line += quoteForShell(word);
    }
    return QString::fromStdString(line);
}

QString exportFormatLabel(ExportFormat format) {
    switch (format) {
    case ExportFormat::ShellScript:
        return QCoreApplication::translate("llamafit::LaunchExport", "Shell script (.sh)…");
    case ExportFormat::BatchFile:
        return QCoreApplication::translate("llamafit::LaunchExport", "Windows batch file (.bat)…");
    case ExportFormat::PresetIni:
        return QCoreApplication::translate("llamafit::LaunchExport", "llama-server preset (.ini)…");
    case ExportFormat::LlamaSwap:
        break;
    }
    return QCoreApplication::translate("llamafit::LaunchExport", "llama-swap entry (.yaml)…");
}

QString exportFileFilter(ExportFormat format) {
    switch (format) {
    case ExportFormat::ShellScript:
        return QCoreApplication::translate("llamafit::LaunchExport", "Shell scripts (*.sh)");
    case ExportFormat::BatchFile:
        return QCoreApplication::translate("llamafit::LaunchExport", "Batch files (*.bat)");
    case ExportFormat::PresetIni:
        return QCoreApplication::translate("llamafit::LaunchExport", "INI files (*.ini)");
    case ExportFormat::LlamaSwap:
        break;
    }
    return QCoreApplication::translate("llamafit::LaunchExport", "YAML files (*.yaml *.yml)");
}

QString exportDefaultFileName(ExportFormat format) {
    switch (format) {
    case ExportFormat::ShellScript:
        return QStringLiteral("llama-server.sh");
    case ExportFormat::BatchFile:
        return QStringLiteral("llama-server.bat");
    case ExportFormat::PresetIni:
        return QStringLiteral("llama-server-preset.ini");
    case ExportFormat::LlamaSwap:
        break;
    }
    return QStringLiteral("llama-swap.yaml");
}

QString exportActionObjectName(ExportFormat format) {
    switch (format) {
    case ExportFormat::ShellScript:
        return QStringLiteral("exportShellAction");
    case ExportFormat::BatchFile:
        return QStringLiteral("exportBatchAction");
    case ExportFormat::PresetIni:
        return QStringLiteral("exportIniAction");
    case ExportFormat::LlamaSwap:
        break;
    }
    return QStringLiteral("exportLlamaSwapAction");
}

} // namespace llamafit
