// The CLI's QCoreApplication; see qtapplicationscope.h.

#include "app/cli/qtapplicationscope.h"

namespace llamafit {

QtApplicationScope::QtApplicationScope() {
    if (QCoreApplication::instance() == nullptr) {
        m_application = std::make_unique<QCoreApplication>(m_argc, m_argv);
    }
}

} // namespace llamafit
