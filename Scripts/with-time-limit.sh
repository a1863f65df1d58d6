#!/usr/bin/env bash
# Runs a command with a time limit: with-time-limit.sh SECONDS COMMAND [ARGUMENTS...]
#
# A test run that hangs would otherwise hold CI until CI's own limit and say nothing about where. Past
# SECONDS this prints every thread's backtrace of each of the project's own programs still running (its
# test binaries, workers and examples: those built under a .build folder), with gdb, which it installs
# where missing; then it stops the command and everything it started, and fails with status 124.
set -uo pipefail
if (($# < 2)); then
    echo "usage: with-time-limit.sh SECONDS COMMAND [ARGUMENTS...]" >&2
    exit 2
fi
limit=$1
shift

# In a session of its own, so everything it starts (test binaries, worker processes, a database server) can be found and stopped.
setsid "$@" &
command=$!
trap 'kill -TERM -- "-$command" 2>/dev/null; exit 143' INT TERM
sleep "$limit" &
timer=$!
finished=""
wait -n -p finished "$command" "$timer"
status=$?
if [[ "$finished" == "$command" ]]; then
    kill "$timer" 2>/dev/null
    exit "$status"
fi

echo
echo "==> with-time-limit.sh: still running after $limit s, so stopped: $*"
if ! command -v gdb > /dev/null; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gdb) > /dev/null 2>&1 || echo "(gdb could not be installed: no backtraces)"
fi
own=()
for process in $(pgrep -s "$command"); do
    executable=$(readlink "/proc/$process/exe" 2>/dev/null) || continue
    [[ "$executable" == */.build* ]] || continue
    own+=("$process")
    echo
    echo "==> Threads of $process: $(tr '\0' ' ' < "/proc/$process/cmdline" 2>/dev/null)"
    command -v gdb > /dev/null && gdb -p "$process" -batch -ex "thread apply all bt 40" 2>/dev/null | grep -E '^(Thread|#)'
done
# The project's programs first, so the scripts that started them clean up (a database server stops) as after a failure;
# then whatever is left, with TERM and at last KILL.
stop() {
    kill "-$1" "${@:2}" 2>/dev/null
    for _ in $(seq 1 30); do
        pgrep -s "$command" > /dev/null || return 0
        sleep 0.5
    done
    return 1
}
if ((${#own[@]} == 0)) || ! stop TERM "${own[@]}"; then
    stop TERM -- "-$command" || stop KILL -- "-$command"
fi
exit 124
