#!/usr/bin/env bash
# OpenFeature's Python SDK and schemathesis against a fleet of two Stowage servers
# (Tests/Python/test_ofrep_clients.py says what is checked), on a throwaway PostgreSQL
# server that Integrations/Postgres/Scripts/postgres.sh starts and stops.
#
#   Integrations/HTTP/Scripts/check-python-clients.sh [SCRATCH_PATH]
#
# SCRATCH_PATH is the build folder whose debug/StowageHTTPFleetServer it runs (built
# here when missing; default: the package's .build). The Python packages go to a virtual
# environment in .build-python, at the versions below. OFREP's description is read from
# ../shared/ofrep (or OFREP_REFERENCE); the check fails without it.
# STOWAGE_SCHEMATHESIS_EXAMPLES (default 200) sets schemathesis's examples per operation.
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$package/../.." && pwd)"
scratch="${1:-$package/.build}"
reference="${OFREP_REFERENCE:-$root/../shared/ofrep}"
[ -f "$reference/openapi.yaml" ] || { echo "check-python-clients.sh: no OFREP description at $reference (../shared/ofrep, or OFREP_REFERENCE)." >&2; exit 1; }

server="$scratch/debug/StowageHTTPFleetServer"
if [ ! -x "$server" ]; then
    swift build --package-path "$package" --scratch-path "$scratch" --product StowageHTTPFleetServer
fi

environment="$package/.build-python"
requirements=(openfeature-sdk==0.10.0 openfeature-provider-ofrep==0.3.0 openfeature-flagd-core==2.0.0 schemathesis==4.32.5)
bash "$package/Scripts/python-environment.sh" "$environment" "${requirements[@]}"

exec bash "$root/Integrations/Postgres/Scripts/postgres.sh" run -- \
    "$environment/bin/python" "$package/Tests/Python/test_ofrep_clients.py" "$server" "$reference"
