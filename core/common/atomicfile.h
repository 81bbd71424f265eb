#pragma once
// writeFileAtomically: replaces a file's content so that a crash, a kill or a full disk at any
// moment leaves either the old content or the new, never a torn mix. The bytes go to a
// temporary file in the same folder, are flushed to the disk, and the temporary file is renamed
// over the target (rename(2) on POSIX, MoveFileExW(MOVEFILE_REPLACE_EXISTING |
// MOVEFILE_WRITE_THROUGH) on Windows: both replace in one step). The Qt side uses QSaveFile,
// which does the same; this is the Qt-free core's one home for it.
//
// Error code: file.write-failed (the message names the path and the OS reason); the target is
// left as it was and the temporary file is removed.

#include "core/common/result.h"

#include <string>
#include <string_view>

namespace llamafit {

// `path` is UTF-8 (core/common/utf8path.h).
Result<bool> writeFileAtomically(const std::string& path, std::string_view bytes);

} // namespace llamafit
