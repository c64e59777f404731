# SPDX-License-Identifier: MIT
# The failed tests of a ctest run, read from its LastTest.log, each with the lines of its output
# that say why: a googletest failure with its message, a sanitizer's report, an exception, a
# timeout; else the output's last lines. `dev.sh test` prints this last when a test failed, so
# that a log cut to its tail (CI's summary) still says why, not only which.
#   awk -f packaging/test-failures.awk build/asan/Testing/Temporary/LastTest.log
BEGIN {
    perTest = 14 # lines of one test's reasons
    detailed = 5 # failed tests shown with their reasons; the others by name
    failed = 0
}

# "12/1287 Test: Suite.Name" opens a test's record; its output runs from the rule under
# "Output:" to "<end of output>"; "Test time = 1.03 sec", then "Test Failed." (or "Test
# Passed.") closes it.
/^[0-9]+\/[0-9]+ Test: / { name = $3; n = 0; state = ""; seconds = "?"; next }
/^Output:$/ && name != "" { state = "rule"; next }
state == "rule" { state = "output"; next }
state == "output" && /^<end of output>$/ { state = ""; next }
state == "output" { out[n++] = $0; next }
/^Test time = / && name != "" { seconds = $4; next }
/^Test Failed/ && name != "" { report(); name = ""; next }
/^Test Passed/ { name = ""; next }

function reason(line) {
    return line ~ /: Failure$/ || line ~ /ERROR: (Address|Leak|Thread|Undefined)Sanitizer/ ||
        line ~ /runtime error:/ || line ~ /what\(\):/ || line ~ /terminate called/ ||
        line ~ /[Tt]imeout/ || line ~ /^CMake Error/ || line ~ /FAIL(ED)?:/
}

function report(    i, j, shown) {
    ++failed
    if (failed > detailed) {
        more = more " " name
        return
    }
    # A timeout is not written in the log: ctest's list above says "(Timeout)", and the output
    # then ends where the test was when it was stopped.
    printf "--- %s failed after %s s:\n", name, seconds
    shown = 0
    for (i = 0; i < n && shown < perTest; ++i) {
        if (!reason(out[i]))
            continue
        # The reason and what follows it up to the next googletest line ("[ ... ]").
        printf "    %s\n", out[i]
        ++shown
        for (j = i + 1; j < n && j <= i + 4 && shown < perTest && out[j] !~ /^\[/; ++j) {
            printf "    %s\n", out[j]
            ++shown
        }
        i = j - 1
    }
    if (shown == 0) { # nothing recognised: the output's end
        for (i = (n > 6 ? n - 6 : 0); i < n; ++i)
            printf "    %s\n", out[i]
    }
}

END {
    if (failed > detailed)
        printf "--- and %d more failed:%s\n", failed - detailed, more
}
