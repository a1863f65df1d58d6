#!/usr/bin/env bash
# The admin page in Debian's headless Chromium, through WebDriver, on a fleet of two Stowage
# servers (Tests/Python/test_admin_page.py says what is checked), on a throwaway PostgreSQL
# server that Integrations/Postgres/Scripts/postgres.sh starts and stops.
#
#   Integrations/HTTP/Scripts/check-admin-page.sh [SCRATCH_PATH [SCREENSHOTS [STOWAGE_TOOL]]]
#
# SCRATCH_PATH is the build folder whose debug/StowageHTTPFleetServer it runs (built here when
# missing; default: the package's .build); STOWAGE_TOOL the stowage tool whose history commands
# it runs (default: Integrations/CommandLine's debug build, built here when missing). Chromium and chromium-driver are installed with
# apt-get where missing; selenium goes to a virtual environment in .build-python-browser.
# The screenshots go to SCREENSHOTS (default: a temporary folder); the guide's are made with
# Guides/Images as SCREENSHOTS.
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="$(cd "$package/../.." && pwd)"
scratch="${1:-$package/.build}"
screenshots="${2:-$(mktemp -d)}"
tool="${3:-$root/Integrations/CommandLine/.build/debug/stowage}"
[ -x "$tool" ] || swift build --package-path "$root/Integrations/CommandLine" --product stowage

if ! command -v chromium > /dev/null || ! command -v chromedriver > /dev/null; then
    command -v apt-get > /dev/null || { echo "check-admin-page.sh: chromium and chromium-driver are missing, and there is no apt-get" >&2; exit 1; }
    echo "Installing chromium and chromium-driver with apt-get" >&2
    as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium chromium-driver >&2
fi

server="$scratch/debug/StowageHTTPFleetServer"
if [ ! -x "$server" ]; then
    swift build --package-path "$package" --scratch-path "$scratch" --product StowageHTTPFleetServer
fi

environment="$package/.build-python-browser"
requirements=(selenium==4.51.0)
bash "$package/Scripts/python-environment.sh" "$environment" "${requirements[@]}"

exec bash "$root/Integrations/Postgres/Scripts/postgres.sh" run -- \
    "$environment/bin/python" "$package/Tests/Python/test_admin_page.py" "$server" "$screenshots" "$tool"
