// This process's environment and OS; see processenvironment.h.

#include "core/system/processenvironment.h"

#include <QByteArray>
#include <QDir>

namespace llamafit {

EnvironmentLookup processEnvironment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const QByteArray value = qgetenv(std::string(name).c_str());
        return value.isEmpty() ? std::nullopt : std::optional<std::string>(value.toStdString());
    };
}

OsKind currentOsKind() {
#if defined(Q_OS_WIN)
    return OsKind::Windows;
#elif defined(Q_OS_MACOS)
    return OsKind::MacOs;
#else
    return OsKind::Linux;
#endif
}

std::string homeDirectory() {
    return QDir::homePath().toStdString();
}

} // namespace llamafit
