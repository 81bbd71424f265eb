// writeFileAtomically: temporary file, flush to disk, rename over the target.
#include "core/common/atomicfile.h"

#include "core/common/utf8path.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#ifdef _WIN32
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

namespace llamafit {
namespace {

Error writeFailed(const std::string& path, const std::string& why) {
    return makeError("file.write-failed", "cannot write '" + path + "': " + why);
}

// A name beside the target no other writer picks: same folder, so the rename stays on one
// file system and is atomic.
std::filesystem::path temporaryPathFor(const std::filesystem::path& target) {
    std::random_device entropy;
    const unsigned suffix = entropy();
    std::filesystem::path temporary = target;
    temporary += std::filesystem::path(".tmp-" + std::to_string(suffix));
    return temporary;
}

#ifdef _WIN32
// Untested on real Windows (exercised under Wine by scripts/test-windows-core.sh): documented
// Win32 calls only -- CreateFileW, WriteFile, FlushFileBuffers, MoveFileExW.
std::string lastErrorText() {
    return "Windows error " + std::to_string(static_cast<unsigned long>(GetLastError()));
}

Result<bool> writeAndReplace(const std::string& path, const std::filesystem::path& target,
                             const std::filesystem::path& temporary, std::string_view bytes) {
    HANDLE file =
        CreateFileW(temporary.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, nullptr);
    if (file == INVALID_HANDLE_VALUE) {
        return writeFailed(path, lastErrorText());
    }
    std::size_t written = 0;
    bool ok = true;
    while (ok && written < bytes.size()) {
        DWORD chunk = 0;
        const DWORD wanted = static_cast<DWORD>(std::min<std::size_t>(bytes.size() - written, 1u << 30));
        ok = WriteFile(file, bytes.data() + written, wanted, &chunk, nullptr) != 0;
        written += chunk;
    }
    ok = ok && FlushFileBuffers(file) != 0;
    const std::string why = ok ? std::string() : lastErrorText();
    CloseHandle(file);
    if (!ok ||
        !MoveFileExW(temporary.c_str(), target.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH)) {
        const std::string reason = ok ? lastErrorText() : why;
        DeleteFileW(temporary.c_str());
        return writeFailed(path, reason);
    }
    return true;
}
#else
Result<bool> writeAndReplace(const std::string& path, const std::filesystem::path& target,
                             const std::filesystem::path& temporary, std::string_view bytes) {
    const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        return writeFailed(path, std::strerror(errno));
    }
    std::size_t written = 0;
    int error = 0;
    while (written < bytes.size()) {
        const ssize_t chunk = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (chunk < 0 && errno == EINTR) {
            continue;
        }
        if (chunk <= 0) {
            error = chunk < 0 ? errno : EIO;
            break;
        }
        written += static_cast<std::size_t>(chunk);
    }
    if (error == 0 && ::fsync(fd) != 0) {
        error = errno;
    }
    if (::close(fd) != 0 && error == 0) {
        error = errno;
    }
    if (error == 0 && ::rename(temporary.c_str(), target.c_str()) != 0) {
        error = errno;
    }
    if (error != 0) {
        ::unlink(temporary.c_str());
        return writeFailed(path, std::strerror(error));
    }
    return true;
}
#endif

} // namespace

Result<bool> writeFileAtomically(const std::string& path, std::string_view bytes) {
    const std::filesystem::path target = pathFromUtf8(path);
    return writeAndReplace(path, target, temporaryPathFor(target), bytes);
}

} // namespace llamafit
