#!/usr/bin/env bash
# The soak test of the JSON file store: several processes with many threads
# each, and an external editor, read and write one JSON file for a set time;
# then every invariant is checked (see Tools/StowageSoak/Coordinator/SoakCoordinator.swift).
#
#   Scripts/soak.sh [seconds] [StowageSoak options]    # default 60 s
#   SOAK_SANITIZER=thread Scripts/soak.sh 120           # under ThreadSanitizer (or address)
#
# Meanwhile the coordinator disrupts the store (--no-disruptions turns it off):
# processes that exit() around their background write, the lock file deleted
# under the writers, and, outside sanitizer runs, a writer whose flock fails for
# a while under the LD_PRELOAD shim in Tools/FaultShim, built here with cc.
#
# Builds in release (or debug, with a sanitizer) in its own build folder, so
# it never waits for, or disturbs, the default .build.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
shift || true

sanitizer="${SOAK_SANITIZER:-}"
if [[ -z "$sanitizer" ]]; then
    swift build -c release --product StowageSoak --build-path .build-soak
    binary=".build-soak/release/StowageSoak"
    # The flock-failing shim (Tools/FaultShim); a sanitizer's runtime must load first, so only here.
    shim=".build-soak/libstowage-fault-shim.so"
    if [[ ! -f "$shim" || Tools/FaultShim/stowage-fault-shim.c -nt "$shim" ]]; then
        cc -shared -fPIC -O2 -o "$shim" Tools/FaultShim/stowage-fault-shim.c -ldl
    fi
    set -- --fault-shim "$PWD/$shim" "$@"
else
    swift build --product StowageSoak --sanitize="$sanitizer" --build-path ".build-soak-$sanitizer"
    binary=".build-soak-$sanitizer/debug/StowageSoak"
    # The sanitizers slow every operation down, so the watchdog gets more room;
    # their quarantine and shadow memory swamp the figures, so memory is not bounded.
    set -- --stall-limit 120 --grace 180 --rss-growth-limit-mib 0 --heap-growth-limit-mib 0 "$@"
    export LSAN_OPTIONS="suppressions=$PWD/.ci/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
exec "$binary" --seconds "$seconds" "$@"
