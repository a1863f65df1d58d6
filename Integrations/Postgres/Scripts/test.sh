#!/usr/bin/env bash
# Runs the package's tests against a throwaway PostgreSQL server, which
# postgres.sh installs where missing, starts, and stops afterwards, even when
# a test fails. Arguments go to `swift test` (e.g. --filter Outage, or
# --sanitize=thread); SWIFT_TEST_FLAGS may add more.
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$package"
# shellcheck disable=SC2086
exec bash "$package/Scripts/postgres.sh" run -- swift test ${SWIFT_TEST_FLAGS:-} "$@"
