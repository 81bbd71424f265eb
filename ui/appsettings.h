#pragma once
// AppSettings: what the desktop app remembers between runs -- the last model, the machine it
// was planned for, the safety margin, the RPC hosts of the cluster, library folders, the llama-server binary
// and address, theme and language, and the window layout. A plain value, loaded once at start and saved on
// exit (and when a panel changes one of its fields), through QSettings in its native format.
// A settings file that cannot be read (a corrupt INI on Linux) is moved aside as
// "<file>.corrupt-YYYYMMDD-HHMMSS", the defaults are used, and the message says where the old
// file went: nothing is silently lost.
// Used by app/gui/main.cpp and MainWindow. Thread: GUI thread. Units: MiB, bytes/s.

#include "core/machine/rpccluster.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>
#include <vector>

class QSettings;

namespace llamafit {

enum class ThemeChoice { System, Light, Dark };

struct AppSettings {
    QString lastModel; // a GGUF path or a built-in card id; empty = the default card
    QString machineId; // a built-in profile id, "detected", or empty = chooseStartMachine
    std::optional<std::uint64_t> carveOutBytes;           // an APU's BIOS carve-out chosen in the app
    std::uint64_t marginMiB = 1024;                       // llama.cpp's --fit-target default
    std::optional<std::uint64_t> bandwidthBytesPerSecond; // user's override of the machine's figure
    QStringList libraryFolders;                           // folders the user added to the model library
    // The Cluster dock's ggml-rpc-servers, saved as "HOST:PORT=FREE_MiB" (llamafit-cli plan --rpc's
    // form); an entry that does not read back is dropped.
    std::vector<RpcHost> rpcHosts;
    QString serverBinary; // empty = $LLAMAFIT_LLAMA_SERVER or llama-server on PATH
    QString host = QStringLiteral("127.0.0.1");
    int port = 0; // 0 = any free port
    ThemeChoice theme = ThemeChoice::System;
    QString language;          // "en", "ja"; empty = the system locale
    QByteArray windowGeometry; // QMainWindow::saveGeometry
    QByteArray windowState;    // QMainWindow::saveState (docks)
    bool operator==(const AppSettings&) const = default;
};

struct AppSettingsLoad {
    AppSettings settings;
    QString message; // non-empty: the file was unreadable and moved aside (says where)
};

// From `settings` (the app's QSettings, or one on a test file).
AppSettingsLoad loadAppSettings(QSettings& settings);
void saveAppSettings(const AppSettings& values, QSettings& settings);

QString themeChoiceName(ThemeChoice theme); // "system", "light", "dark"
std::optional<ThemeChoice> themeChoiceFromName(const QString& name);

} // namespace llamafit
