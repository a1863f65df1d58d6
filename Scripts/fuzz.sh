#!/usr/bin/env bash
# Fuzzes every parser of the package with libFuzzer, as many targets at once as
# there are cores.
#
#   Scripts/fuzz.sh [seconds per target, default 60] [target...]
#
# Targets: json-parser, dotenv-parser, environment-values, storable-decoding, json-logic, flag-definitions
# (all by default). Each is an executable of this package (Tools/Stowage*Fuzzer)
# that runs a check from Tools/StowageFuzzing over every input; the checks
# say which properties they hold beyond "nothing traps".
#
# The targets are built with -sanitize=fuzzer,address into .build-fuzz, in
# release; FUZZ_CONFIGURATION=debug builds them unoptimized, in a third of the
# time, running at about half the speed with assertions on (CI's brief run). Each
# starts from a copy of its committed seed corpus (Tools/Fuzz/Corpus/<target>) and
# its regression inputs (Tools/Fuzz/Regressions/<target>) in a temporary folder, so
# a campaign never changes the repository; set FUZZ_KEEP_CORPUS to a folder
# to keep the grown corpora there, for example to merge new seeds with
# `<executable> -merge=1 Tools/Fuzz/Corpus/<target> <kept corpus>`.
#
# A crash or a broken property stops that target, leaves the input in
# .build-fuzz/findings/<target>/ and makes the script exit 1 after the other
# targets have run. Replay a finding with the target's executable, fuzzing
# build or not: `.build-fuzz/release/StowageJSONParserFuzzer <file>` (debug/ for a debug build). Full logs are
# in .build-fuzz/logs/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds="${1:-60}"
shift || true

# target name, executable, longest input (bytes)
all_targets=(
    "json-parser StowageJSONParserFuzzer 8192"
    "dotenv-parser StowageDotEnvParserFuzzer 4096"
    "environment-values StowageEnvironmentValueFuzzer 1024"
    "storable-decoding StowageStorableDecodingFuzzer 2048"
    "json-logic StowageJSONLogicFuzzer 4096"
    "flag-definitions StowageFlagDefinitionsFuzzer 8192"
)
selected=()
if [ $# -eq 0 ]; then
    selected=("${all_targets[@]}")
else
    for name in "$@"; do
        found=""
        for entry in "${all_targets[@]}"; do
            if [ "${entry%% *}" = "$name" ]; then found="$entry"; fi
        done
        if [ -z "$found" ]; then
            echo "Unknown fuzz target $name; the targets are: $(for entry in "${all_targets[@]}"; do printf '%s ' "${entry%% *}"; done)" >&2
            exit 2
        fi
        selected+=("$found")
    done
fi

build="$root/.build-fuzz"
configuration="${FUZZ_CONFIGURATION:-release}"
case "$configuration" in
    debug | release) ;;
    *) echo "FUZZ_CONFIGURATION is debug or release, not $configuration" >&2; exit 2 ;;
esac
echo "Building the fuzz targets with -sanitize=fuzzer,address into $build, in $configuration"
start=$SECONDS
for entry in "${selected[@]}"; do
    read -r _ executable _ <<< "$entry"
    # ld.gold prints "Cannot export local symbol" for every ASan helper; they are harmless.
    swift build -c "$configuration" --build-path "$build" --product "$executable" \
        -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING 2>&1 | { grep -v "Cannot export local symbol" || true; }
done
echo "Built in $((SECONDS - start)) s."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/logs"
# Swift's own backtracer would catch the crash first and only slow it down.
export SWIFT_BACKTRACE=enable=no
# Runs one target to its time limit; its exit status goes to a file beside its log.
fuzz_target() {
    local name=$1 executable=$2 max_len=$3 status=0
    "$build/$configuration/$executable" "$work/$name" \
        -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
        -print_final_stats=1 -artifact_prefix="$build/findings/$name/" > "$build/logs/$name.log" 2>&1 || status=$?
    echo "$status" > "$build/logs/$name.status"
}

# Targets run side by side, one per core (FUZZ_JOBS to choose), each on a core of its own.
parallel_jobs="${FUZZ_JOBS:-$(getconf _NPROCESSORS_ONLN)}"
for entry in "${selected[@]}"; do
    read -r name executable max_len <<< "$entry"
    mkdir -p "$work/$name" "$build/findings/$name"
    for folder in Corpus Regressions; do
        if [ -d "$root/Tools/Fuzz/$folder/$name" ]; then
            # README.md is the note of a target with no findings, not an input.
            find "$root/Tools/Fuzz/$folder/$name" -maxdepth 1 -type f ! -name README.md -exec cp {} "$work/$name/" \;
        fi
    done
    echo "==> $name for $seconds s, from $(find "$work/$name" -type f | wc -l | tr -d ' ') seed inputs"
    while [ "$(jobs -rp | wc -l)" -ge "$parallel_jobs" ]; do wait -n || true; done
    fuzz_target "$name" "$executable" "$max_len" &
done
wait

failed=()
for entry in "${selected[@]}"; do
    read -r name _ _ <<< "$entry"
    log="$build/logs/$name.log"
    status=$(cat "$build/logs/$name.status")
    last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    echo
    echo "$name: ${runs:-?} executions, ${speed:-?} exec/s; last status: ${last:-none}"
    echo "    corpus: $(find "$work/$name" -type f | wc -l | tr -d ' ') files; log: $log"
    if [ "$status" -ne 0 ]; then
        failed+=("$name")
        echo "$name FAILED (exit status $status). The end of its log:"
        grep -v -E '^#[0-9]+|^INFO:|^\s+NEW_FUNC' "$log" | tail -40
        grep -E 'Test unit written to|artifact_prefix' "$log" || true
    fi
    if [ -n "${FUZZ_KEEP_CORPUS:-}" ]; then
        mkdir -p "$FUZZ_KEEP_CORPUS/$name"
        cp "$work/$name"/* "$FUZZ_KEEP_CORPUS/$name/" 2>/dev/null || true
    fi
done

echo
if [ ${#failed[@]} -ne 0 ]; then
    echo "Fuzzing found problems in: ${failed[*]}. The inputs are in $build/findings/." >&2
    exit 1
fi
echo "Fuzzing: every target ran $seconds s without a crash or a broken property."
