#!/usr/bin/env bash
# Checks that every Swift file of the repository, in every package, is formatted as
# `swift format` formats it with the repository's .swift-format (the toolchain's own
# formatter; its lint rules are off, only the layout is checked).
#
#   Scripts/check-format.sh          # fails, naming each file and line, when one is not
#   Scripts/check-format.sh --fix    # formats them in place
#
# Files come from git, so the packages' build folders and their dependencies are left out.
set -euo pipefail
cd "$(dirname "$0")/.."
files=()
while IFS= read -r -d '' file; do files+=("$file"); done < <(git ls-files -z -- '*.swift')
if [ "${1:-}" = "--fix" ]; then
    swift format --in-place --parallel "${files[@]}"
    echo "Formatted ${#files[@]} files."
    exit 0
fi
if ! swift format lint --strict --parallel "${files[@]}"; then
    echo "Some Swift files are not formatted: run Scripts/check-format.sh --fix and commit the result." >&2
    exit 1
fi
echo "All ${#files[@]} Swift files are formatted."
