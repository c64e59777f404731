// SPDX-License-Identifier: MIT
// The results reader on any bytes: an error or a file, never a crash, an exception or UB; a
// file it accepts writes back out as JSON and CSV.
#include "ctxscope/csv.h"
#include "ctxscope/results_file.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto file = ctxscope::readResults(text);
    if (!file) {
        if (file.error().message.empty())
            __builtin_trap();
        return 0;
    }
    (void)ctxscope::makeReport(file->context.raw, file->results, true).dump();
    (void)ctxscope::resultsToCsv(file->context.raw, file->results);
    return 0;
}
