#pragma once
// QtApplicationScope: the QCoreApplication a command needs for Qt's event loop (HTTP, child
// processes, timers), made when none exists and gone with the scope. Qt keeps a reference to argc
// and argv for the application's life, so they live here beside it. One home for what launch,
// bench, hf and engines each did by hand.

#include <QCoreApplication>

#include <memory>

namespace llamafit {

class QtApplicationScope {
  public:
    QtApplicationScope();
    QtApplicationScope(const QtApplicationScope&) = delete;
    QtApplicationScope& operator=(const QtApplicationScope&) = delete;

  private:
    int m_argc = 1;
    char m_name[13] = "llamafit-cli";
    char* m_argv[2] = {m_name, nullptr};
    std::unique_ptr<QCoreApplication> m_application;
};

} // namespace llamafit
