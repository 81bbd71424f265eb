#pragma once
// RpcCommandsDialog: the text that starts a ggml-rpc-server on another host, for the user to copy
// or save there -- a POSIX shell line, a systemd unit or a Windows .bat
// (core/server/rpcservercommand.h). The port comes from the cluster table's selected host; the
// server listens on 127.0.0.1 unless "Listen on all addresses" is ticked (0.0.0.0), and then the
// text carries llama.cpp's warning. The program is the ggml-rpc-server path on that host.
// Used by ClusterPanel ("Commands for another host..."). Thread: GUI.
// Object names: rpcCommandsFormat, rpcCommandsProgram, rpcCommandsAllAddresses, rpcCommandsText,
// rpcCommandsCopy, rpcCommandsSave.

#include "core/server/rpcservercommand.h"

#include <QDialog>

#include <cstdint>
#include <string>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;

namespace llamafit {

class RpcCommandsDialog : public QDialog {
    Q_OBJECT
  public:
    enum class Format { Shell, Systemd, Batch }; // the format box's rows, in this order

    explicit RpcCommandsDialog(std::uint16_t port, QWidget* parent = nullptr);

    RpcServerOptions options() const;
    QString text() const; // what the dialog shows
    // Writes the script (CRLF kept for the .bat) to `path`; false (and the reason in the text's place) when
    // it cannot.
    bool saveTo(const QString& path);

  private:
    void refresh();

    std::uint16_t m_port;
    QComboBox* m_format;
    QLineEdit* m_program;
    QCheckBox* m_allAddresses;
    QPlainTextEdit* m_text;
    std::string m_script; // the core's text, byte for byte (CRLF in the .bat)
};

} // namespace llamafit
