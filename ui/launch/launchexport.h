#pragma once
// The launch panel's exports: one llama-server launch (ExportSpec) written as a shell script,
// a Windows .bat, a llama-server `--models-preset` INI section or a llama-swap entry, with the
// text from core/server/exports.h. Kept apart from the file dialog so the saving is testable.
// Used by LaunchPanel's export menu. Thread: any (plain file I/O).
//
// Error codes: the core's export.unrepresentable, and export.write-failed (names the file).

#include "core/common/result.h"
#include "core/server/exports.h"

#include <QString>

#include <array>
#include <string>
#include <vector>

namespace llamafit {

enum class ExportFormat { ShellScript, BatchFile, PresetIni, LlamaSwap };

inline constexpr std::array<ExportFormat, 4> kExportFormats{
    ExportFormat::ShellScript, ExportFormat::BatchFile, ExportFormat::PresetIni, ExportFormat::LlamaSwap};

// The core's text for `format`.
Result<std::string> exportText(ExportFormat format, const ExportSpec& spec);
// Writes exportText() to `path` (replacing it); a shell script is made executable.
Result<bool> writeExportFile(ExportFormat format, const ExportSpec& spec, const QString& path);

// `program args` as one line for this OS's shell: each word quoted with quotePosixArgument
// (Windows: quoteBatchArgument; a word cmd cannot carry is shown as is).
QString shellCommandLine(const std::string& program, const std::vector<std::string>& args);

QString exportFormatLabel(ExportFormat format);      // translated menu text: "Shell script (.sh)..."
QString exportFileFilter(ExportFormat format);       // for QFileDialog: "Shell scripts (*.sh)"
QString exportDefaultFileName(ExportFormat format);  // "llama-server.sh", "llama-swap.yaml", ...
QString exportActionObjectName(ExportFormat format); // "exportShellAction", ...

} // namespace llamafit
