#!/usr/bin/env bash
# The regression guard on the hot paths: counts the instructions one run of
# each path costs, under valgrind's callgrind, and compares them with the
# committed Benchmarks/instruction-counts.txt. Instructions, not seconds, so
# the figures do not move with the machine's load (Benchmarks/InstructionCounts.md).
#
#   Scripts/instruction-counts.sh                  checks every path: exit 1 when one grew by more than 10%
#   Scripts/instruction-counts.sh --update         measures every path and rewrites the committed file
#   Scripts/instruction-counts.sh --only root      only the root package's paths, no PostgreSQL (or --only postgres)
#   Scripts/instruction-counts.sh --repeat 3       measures each path 3 times and shows the spread
#
# A path that shrank by more than 10% is reported, not failed: the committed
# figure should follow it down (--update), or the next slowdown hides under it.
# A path the tools have and the file lacks, or the other way round, fails
# until --update writes the file anew.
#
# The paths are Tools/StowageInstructionCounts's and, named postgres-*,
# Integrations/Postgres/Tools/StowagePostgresInstructionCounts's, which reads a
# throwaway server that Integrations/Postgres/Scripts/postgres.sh starts. Each
# runs N and 2N times, counting only inside `countedLoop`
# (--toggle-collect): the difference divided by N is the cost of one
# iteration, and what the N-run counted beyond N of those (entering and leaving
# the loop) must stay under a few hundred instructions, or something other than
# the loop was counted.
#
# Both tools build in release: the root one in .build-soak, where
# Scripts/soak.sh builds the modules it shares, so CI compiles those once; the
# PostgreSQL one in Integrations/Postgres/.build-counts. Installs valgrind with
# apt-get where it is missing. CI runs --only root after the soak and --only
# postgres after the PostgreSQL package's tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

counts_file=Benchmarks/instruction-counts.txt
# Growth past this fails; shrinking past it asks for --update.
threshold_percent=10
# Large enough that one-off work would show as a fixed part, small enough to take seconds.
iterations=50000
# Entering and leaving the loop costs a few dozen instructions; a fixed part
# above this means callgrind counted more than the loop.
fixed_part_limit=500

usage() {
    sed -n '7,10s/^# \{0,1\}//p' "$0" >&2
    exit 2
}

update=
parts=(root postgres)
repeat=1
while (($#)); do
    case $1 in
    --update) update=1 ;;
    --only)
        [[ ${2:-} == root || ${2:-} == postgres ]] || usage
        parts=("$2")
        shift
        ;;
    --repeat)
        [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage
        repeat=$2
        shift
        ;;
    *) usage ;;
    esac
    shift
done

fail() {
    echo "instruction-counts: $*" >&2
    exit 1
}

scratch=$(mktemp -d "${TMPDIR:-/tmp}/stowage-counts.XXXXXXXX")
postgres_dir=
cleanup() {
    if [[ $postgres_dir ]]; then Integrations/Postgres/Scripts/postgres.sh stop "$postgres_dir" >/dev/null 2>&1 || true; fi
    rm -rf "$scratch"
}
trap cleanup EXIT

# --- valgrind -------------------------------------------------------------------

as_root() {
    if ((EUID == 0)); then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else fail "need root (or sudo) for: $*"; fi
}

# CI machines start bare; the package list may be too old to know valgrind yet.
if ! command -v valgrind >/dev/null; then
    command -v apt-get >/dev/null || fail "valgrind is missing and there is no apt-get: install it by hand"
    echo "Installing valgrind with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    as_root apt-get install -y -q valgrind >/dev/null 2>&1 ||
        { as_root apt-get update -q >/dev/null && as_root apt-get install -y -q valgrind >/dev/null; } ||
        fail "could not install valgrind with apt-get"
fi
valgrind=$(command -v valgrind)

# Every run gets the same few variables and nothing of the caller's, so its
# startup, and the layout of its stack, are the same each time; and Swift's
# hashing is seeded the same, so a dictionary's probes are too. Exported
# rather than given to env(1), so the server's password never shows in ps.
clean_env=(PATH=/usr/bin:/bin LC_ALL=C SWIFT_DETERMINISTIC_HASHING=1)
path_env=()
run_clean() {
    (
        while read -r name; do unset "$name" 2>/dev/null || true; done < <(compgen -e)
        for pair in "${clean_env[@]}" "${path_env[@]}"; do export "${pair?}"; done
        exec "$@"
    )
}

# --- the tools --------------------------------------------------------------------

root_tool=.build-soak/release/StowageInstructionCounts
postgres_tool=Integrations/Postgres/.build-counts/release/StowagePostgresInstructionCounts

# The tool's own module is always compiled again: SwiftPM recompiles a module
# when the modules it imports change, not those they import, and the tool
# inlines the library's @inlinable code through them; once, a change to
# ReferenceCore.fastValue() left the tool's objects, and so its counts, as they were.
build_part() {
    case $1 in
    root)
        rm -f .build-soak/release/StowageInstructionCounts.build/*.o
        swift build -c release --product StowageInstructionCounts --build-path .build-soak
        ;;
    postgres)
        rm -f Integrations/Postgres/.build-counts/release/StowagePostgresInstructionCounts.build/*.o
        swift build -c release --product StowagePostgresInstructionCounts --package-path Integrations/Postgres \
            --build-path Integrations/Postgres/.build-counts
        ;;
    esac
}

# The binary valgrind runs: the tool itself, or, when valgrind can not read its
# debug information (a newer DWARF than it knows), a copy without it; the code,
# and so the count, is the same.
binary_to_count() {
    local tool=$1 copy status=0
    run_clean "$valgrind" --tool=none "$tool" --list >/dev/null 2>"$scratch/probe.err" || status=$?
    if ! grep -qiE 'debug ?info|dwarf' "$scratch/probe.err"; then
        if ((status != 0)); then
            cat "$scratch/probe.err" >&2
            fail "$tool --list failed under valgrind (its output is above)"
        fi
        echo "$tool"
        return
    fi
    copy="$scratch/$(basename "$tool")-stripped"
    strip --strip-debug -o "$copy" "$tool"
    echo "Valgrind could not read the debug information of $tool; counting a copy stripped of it." >&2
    echo "$copy"
}

# The mangled name of the tool's `countedLoop`: one function, or the toggle
# would count a copy the optimizer made, or nothing.
loop_symbol() {
    local symbols
    symbols=$(nm --defined-only "$1" | awk '$3 ~ /11countedLoop/ { print $3 }' | sort -u)
    [[ $symbols && $symbols != *$'\n'* ]] ||
        fail "$1 should define one countedLoop function, and defines: ${symbols:-none}"
    echo "$symbols"
}

# --- counting -----------------------------------------------------------------------

# Instructions counted inside the loop for one run of PATH with N iterations.
count_run() {
    local binary=$1 symbol=$2 path=$3 n=$4 out="$scratch/callgrind.out"
    rm -f "$out"
    if ! run_clean "$valgrind" --tool=callgrind --callgrind-out-file="$out" \
        --collect-atstart=no --toggle-collect="$symbol" "$binary" "$path" "$n" >"$scratch/run.log" 2>&1; then
        cat "$scratch/run.log" >&2
        fail "$path failed under valgrind with $n iterations (its output is above)"
    fi
    awk '$1 == "totals:" { print $2 }' "$out"
}

# Sets `per_iteration` for PATH (to a tenth), or fails when the count is not
# N times one iteration's plus a small fixed part.
measure() {
    local binary=$1 symbol=$2 path=$3 once twice
    once=$(count_run "$binary" "$symbol" "$path" "$iterations")
    twice=$(count_run "$binary" "$symbol" "$path" $((2 * iterations)))
    [[ $once =~ ^[0-9]+$ && $twice =~ ^[0-9]+$ ]] || fail "$path: callgrind reported no count"
    per_iteration=$(awk -v a="$once" -v b="$twice" -v n="$iterations" 'BEGIN { printf "%.1f", (b - a) / n }')
    per_iteration=${per_iteration%.0}
    # What N iterations counted beyond N times one iteration's cost.
    local fixed=$((2 * once - twice))
    if ((fixed < 0 || fixed > fixed_part_limit)); then
        fail "$path: $iterations iterations counted $once instructions and $((2 * iterations)) counted $twice," \
            "so $fixed were not the loop's (at most $fixed_part_limit are): something outside the loop, or" \
            "one-off work inside it, was counted"
    fi
}

# Which tool a path, and so a line of the file, belongs to goes by its name.
part_named() {
    if [[ $1 == postgres-* ]]; then echo postgres; else echo root; fi
}

# --- the committed file, read first so that a broken one fails at once ------------------

declare -A committed=()
if [[ -f $counts_file ]]; then
    while read -r name count _; do
        [[ -z $name || $name == \#* ]] && continue
        if [[ ! $count =~ ^[0-9]+(\.[0-9]+)?$ || $count =~ ^0+(\.0*)?$ || ${committed[$name]:-} ]]; then
            # --update drops such a line and writes the path's new count.
            [[ $update ]] || fail "$counts_file: '$name $count' is not a path's name and positive count, or names the path twice; --update writes the file anew"
            continue
        fi
        committed[$name]=$count
    done <"$counts_file"
fi

# Only the lines of the parts measured now are compared, or rewritten by --update.
in_parts() {
    [[ " ${parts[*]} " == *" $(part_named "$1") "* ]]
}

# --- measuring -----------------------------------------------------------------------

declare -A measured=() spread=()
for part in "${parts[@]}"; do
    echo "==> Building the $part tool in release"
    build_start=$SECONDS
    if ! build_part "$part" >"$scratch/build.log" 2>&1; then
        tail -n 40 "$scratch/build.log" >&2
        fail "the $part tool did not build (the end of swift build's output is above)"
    fi
    echo "    built in $((SECONDS - build_start)) s"

    path_env=()
    if [[ $part == root ]]; then tool=$root_tool; else tool=$postgres_tool; fi
    if [[ $part == postgres ]]; then
        postgres_dir="$scratch/postgres"
        if ! env_file=$(Integrations/Postgres/Scripts/postgres.sh start "$postgres_dir" 2>"$scratch/postgres.log"); then
            cat "$scratch/postgres.log" >&2
            fail "the PostgreSQL server did not start (postgres.sh's words are above)"
        fi
        # shellcheck source=/dev/null
        source "$env_file"
        for name in HOST PORT USER PASSWORD DATABASE; do
            variable="STOWAGE_POSTGRES_$name"
            path_env+=("$variable=${!variable}")
        done
    fi

    count_start=$SECONDS
    binary=$(binary_to_count "$tool")
    symbol=$(loop_symbol "$binary")
    mapfile -t paths < <("$binary" --list | cut -f1)
    ((${#paths[@]})) || fail "$tool --list named no path"
    for path in "${paths[@]}"; do
        [[ $(part_named "$path") == "$part" ]] || fail "$path: the PostgreSQL tool's paths, and only they, are named postgres-*"
        low='' high=''
        for ((run = 1; run <= repeat; run++)); do
            measure "$binary" "$symbol" "$path"
            low=$(awk -v a="$per_iteration" -v b="${low:-$per_iteration}" 'BEGIN { print (a < b ? a : b) }')
            high=$(awk -v a="$per_iteration" -v b="${high:-$per_iteration}" 'BEGIN { print (a > b ? a : b) }')
        done
        # The least of the runs: noise only ever adds instructions.
        measured[$path]=$low
        spread[$path]="$low to $high"
    done
    echo "    counted ${#paths[@]} paths in $((SECONDS - count_start)) s"
    if [[ $postgres_dir ]]; then
        Integrations/Postgres/Scripts/postgres.sh stop "$postgres_dir" >/dev/null 2>&1 || true
        postgres_dir=
    fi
done

# --- comparing -----------------------------------------------------------------------

failures=()
printf '\n%-34s %10s %10s %8s  %s\n' path committed now change ""
for name in $(printf '%s\n' "${!measured[@]}" "${!committed[@]}" | sort -u); do
    in_parts "$name" || continue
    now=${measured[$name]:-} was=${committed[$name]:-} change=- note=''
    if [[ -z $now ]]; then
        note="in $counts_file, but no tool has this path"
        failures+=("$name is in $counts_file, but no tool has this path any more.")
    elif [[ -z $was ]]; then
        note="not in $counts_file"
        failures+=("$name is not in $counts_file: a new path needs its line.")
    else
        change=$(awk -v was="$was" -v now="$now" 'BEGIN { printf "%+.1f%%", (now - was) / was * 100 }')
        case $(awk -v was="$was" -v now="$now" -v t="$threshold_percent" 'BEGIN { c = (now - was) / was * 100; print (c > t ? "grew" : (c < -t ? "shrank" : "ok")) }') in
        grew)
            note="GREW by more than $threshold_percent%"
            failures+=("$name grew from $was to $now instructions per iteration ($change), more than $threshold_percent%.")
            ;;
        shrank) note="shrank by more than $threshold_percent%: --update, and commit the file, so the next slowdown can not hide below" ;;
        esac
    fi
    if ((repeat > 1)) && [[ $now ]]; then note="$repeat runs: ${spread[$name]}${note:+; $note}"; fi
    printf '%-34s %10s %10s %8s  %s\n' "$name" "${was:--}" "${now:--}" "$change" "$note"
done
echo

if [[ $update ]]; then
    declare -A written=()
    for name in "${!committed[@]}"; do
        in_parts "$name" || written[$name]=${committed[$name]}
    done
    for name in "${!measured[@]}"; do written[$name]=${measured[$name]}; done
    {
        echo "# Instructions per iteration of each hot path, counted by callgrind inside the tools' countedLoop,"
        echo "# in release builds: Scripts/instruction-counts.sh --update wrote it, with $(swift --version 2>/dev/null | head -n 1 | sed 's/ (.*//') and $("$valgrind" --version)."
        echo "# The script fails when a path costs more than $threshold_percent% above its line here; see Benchmarks/InstructionCounts.md."
        echo "# path                             instructions per iteration"
        for name in $(printf '%s\n' "${!written[@]}" | sort); do
            printf '%-34s %s\n' "$name" "${written[$name]}"
        done
    } >"$counts_file.new"
    mv "$counts_file.new" "$counts_file"
    echo "Wrote $counts_file."
    exit 0
fi

if ((${#failures[@]})); then
    for failure in "${failures[@]}"; do echo "instruction-counts: $failure" >&2; done
    echo "instruction-counts: if the change is meant, run Scripts/instruction-counts.sh --update and commit $counts_file with it." >&2
    exit 1
fi
echo "Every path is within $threshold_percent% of $counts_file."
