#!/usr/bin/env bash
# Runs the package's example program against a throwaway PostgreSQL server,
# which postgres.sh installs where missing, starts, and stops afterwards.
# SWIFT_RUN_FLAGS go to `swift run` (CI runs the example from its ThreadSanitizer build).
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$package"
exec bash "$package/Scripts/postgres.sh" run -- swift run ${SWIFT_RUN_FLAGS:-} stowage-postgres-example "$@"
