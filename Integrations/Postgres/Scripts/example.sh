#!/usr/bin/env bash
# Runs the package's example program against a throwaway PostgreSQL server,
# which postgres.sh installs where missing, starts, and stops afterwards.
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$package"
exec bash "$package/Scripts/postgres.sh" run -- swift run stowage-postgres-example "$@"
