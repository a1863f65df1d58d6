#!/usr/bin/env bash
# Runs the code of Guides/PostgresStore.md and Guides/Fleet.md (the program
# StowagePostgresGuide, which the GuideCode plugin builds from them) against a
# throwaway PostgreSQL server, and checks with Scripts/guide-output.py that each
# prints exactly what its guide shows (Guides/Development.md, "How a guide
# shows output"). The guides find the server by the variables psql reads
# (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE), set here from what
# postgres.sh exports. The argument is the package's build folder, absolute or
# relative to the package (default .build), built beforehand.
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$package/../.." && pwd)"
folder=${1:-.build}
[[ $folder == /* ]] || folder="$package/$folder"
program="$folder/debug/StowagePostgresGuide"
[ -x "$program" ] || { echo "check-guides.sh: no $program; build the package first" >&2; exit 1; }
exec bash "$package/Scripts/postgres.sh" run -- bash -c '
    export PGHOST=$STOWAGE_POSTGRES_HOST PGPORT=$STOWAGE_POSTGRES_PORT PGUSER=$STOWAGE_POSTGRES_USER
    export PGPASSWORD=$STOWAGE_POSTGRES_PASSWORD PGDATABASE=$STOWAGE_POSTGRES_DATABASE
    failed=0
    for guide in PostgresStore Fleet; do
        python3 "$1/Scripts/guide-output.py" run "$1/Guides/$guide.md" -- "$2" "$guide" || failed=1
    done
    exit "$failed"' check-guides "$root" "$program"
