#!/usr/bin/env bash
# Runs the example server on a free port, asks it for a targeted flag and for every flag with
# curl, as its header shows, checks the answers, and stops it with SIGTERM, which it must answer
# by shutting down gracefully.
#
#   Integrations/HTTP/Scripts/check-example.sh [SCRATCH_PATH]
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${1:-$package/.build}"
example="$scratch/debug/stowage-http-example"
[ -x "$example" ] || swift build --package-path "$package" --scratch-path "$scratch" --product stowage-http-example
output=$(mktemp)
trap 'kill "$pid" 2> /dev/null || true; rm -f "$output"' EXIT
PORT=0 "$example" > "$output" 2>&1 &
pid=$!
# Its first line says where it serves: read as it comes, within 60 s.
line=$(timeout 60 grep -m1 "^Serving OFREP on " <(tail -n +1 -f --pid="$pid" "$output")) || { cat "$output" >&2; exit 1; }
base=$(sed -E 's/^Serving OFREP on ([^ ]+) .*/\1/' <<<"$line")
ask() { curl -sS -H 'Authorization: Bearer example-token' -d "$2" "$base/$1"; }
expect() { [ "$1" = "$2" ] || { echo "check-example.sh: got $1, expected $2" >&2; exit 1; }; }
expect "$(ask evaluate/flags/new-checkout '{"context":{"targetingKey":"user-1","plan":"pro"}}')" \
    '{"key":"new-checkout","reason":"TARGETING_MATCH","value":true,"variant":"on"}'
expect "$(ask evaluate/flags/new-checkout '{"context":{"targetingKey":"user-1","plan":"free"}}')" \
    '{"key":"new-checkout","reason":"TARGETING_MATCH","value":false,"variant":"off"}'
expect "$(curl -sS -o /dev/null -w '%{http_code}' -d '{}' "$base/evaluate/flags")" 401
kill -TERM "$pid"
wait "$pid" || { echo "check-example.sh: the example did not stop cleanly on SIGTERM" >&2; cat "$output" >&2; exit 1; }
echo "The example answered as its header shows and stopped on SIGTERM."
