// SPDX-License-Identifier: MIT
#include "os/sys.h"

#include <cstring>

namespace ctxscope::sys {

std::string errnoText(int err)
{
    char buffer[256];
    // GNU strerror_r returns the message, which may or may not live in buffer.
    return ::strerror_r(err, buffer, sizeof buffer);
}

} // namespace ctxscope::sys
