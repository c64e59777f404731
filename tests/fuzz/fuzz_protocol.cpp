// SPDX-License-Identifier: MIT
// The worker protocol on any line: a command or an error with a message; a command it accepts
// prints as a line that parses back to the same line.
#include "ctxscope/protocol.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    using namespace ctxscope::protocol;
    const std::string_view line(reinterpret_cast<const char*>(data), size);
    auto command = parseCommand(line);
    if (!command) {
        if (command.error().message.empty())
            __builtin_trap();
    } else {
        const std::string printed = commandLine(*command);
        auto again = parseCommand(printed);
        if (!again || commandLine(*again) != printed)
            __builtin_trap();
    }
    // The controller's side reads worker messages with the same care.
    (void)parseMessage(line);
    return 0;
}
