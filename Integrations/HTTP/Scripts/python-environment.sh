#!/usr/bin/env bash
# Makes a Python virtual environment with exactly the given requirements, where it is missing or
# holds others: the HTTP package's checks install what they need, and a second run reuses it.
#
#   Integrations/HTTP/Scripts/python-environment.sh FOLDER REQUIREMENT...
set -euo pipefail
environment=$1
shift
if [ "$(cat "$environment/installed" 2> /dev/null)" != "$*" ]; then
    echo "Installing $* into $environment"
    rm -rf "$environment"
    python3 -m venv "$environment"
    "$environment/bin/pip" install --quiet --disable-pip-version-check "$@"
    echo "$*" > "$environment/installed"
fi
