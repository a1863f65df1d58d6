#!/usr/bin/env bash
# Checks that the public API of every library module is the one recorded in
# API/<Module>.txt, so that each change of the API is a commit of its own record
# that a reviewer sees. Fails with the difference otherwise.
#
#   Scripts/check-api.sh                                  # the root package's modules
#   Scripts/check-api.sh --package Integrations/Logging   # an integration's (StowageLogging)
#   Scripts/check-api.sh --update [--package ...]         # rewrite the records after a deliberate change
#   Scripts/check-api.sh --symbol-graphs DIR [...]        # with graphs already dumped, as Scripts/build-docs.sh leaves them
#   Scripts/check-api.sh --package P -- OPTIONS           # OPTIONS go to `swift package`, in P, before dump-symbol-graph
#
# The records come from the symbol graphs of `swift package dump-symbol-graph`,
# which builds the package's library modules first (nothing, when `swift build` or
# `swift test` has just built it with the same options) and is read by
# Scripts/api-record.py; the records of every package are in API/ at the root.
# Scripts/build-docs.sh keeps the graphs it documents in <package>/.build-docs/
# symbol-graphs, so a run of both dumps them once:
#
#   Scripts/build-docs.sh && Scripts/check-api.sh --symbol-graphs .build-docs/symbol-graphs
#
# Pass the options the package was built with, or the dump builds it again with
# other ones: `-- -Xswiftc -warnings-as-errors` where CI builds with them, and
# `-- --sanitize=thread --build-path .build-tsan` for Integrations/Postgres, which
# CI builds under ThreadSanitizer only. Paths in OPTIONS are relative to P.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '5,10s/^# //p' "$0" >&2; exit 2; }

update=false
package=.
graphs=
while [ $# -gt 0 ]; do
    case "$1" in
        --update) update=true ;;
        --package) package=${2:?--package needs a folder}; shift ;;
        --symbol-graphs) graphs=$(cd "${2:?--symbol-graphs needs a folder}" && pwd); shift ;;
        --) shift; break ;;
        *) usage ;;
    esac
    shift
done
options=("$@")
cd "$root/$package"

source "$root/Scripts/library-modules.sh"
library_modules "$package"
package_option=
[ "$package" = . ] || package_option=" --package $package"

if [ -z "$graphs" ]; then
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    graphs=$(dump_symbol_graphs "$work/dump.log" "${options[@]}")
fi

mkdir -p "$root/API"
failed=()
for module in "${modules[@]}"; do
    record="$root/API/$module.txt"
    actual=$(python3 "$root/Scripts/api-record.py" "$graphs" --module "$module")
    if $update; then
        if [ ! -f "$record" ] || [ "$actual" != "$(cat "$record")" ]; then
            printf '%s\n' "$actual" > "$record"
            echo "Updated API/$module.txt"
        fi
    elif [ ! -f "$record" ]; then
        echo "No record of the public API of $module: API/$module.txt is missing." >&2
        failed+=("$module")
    elif ! diff -u --label "API/$module.txt (recorded)" --label "$module (built)" "$record" - <<< "$actual"; then
        failed+=("$module")
    fi
done

if [ ${#failed[@]} -gt 0 ]; then
    cat >&2 <<EOF

The public API of ${failed[*]} does not match its record in API/ (above: - recorded, + built).
If the change is meant, record it and commit the record with the change, so a reviewer sees it:

    Scripts/check-api.sh --update$package_option
    git add API/ && git commit

If it is not, put back what changed.
EOF
    exit 1
fi
[ ${#modules[@]} = 1 ] && what="module matches its record" || what="modules match their records"
$update || echo "The public API of ${#modules[@]} $what in API/."
