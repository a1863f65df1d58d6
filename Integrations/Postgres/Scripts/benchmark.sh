#!/usr/bin/env bash
# Runs the package's benchmarks (release build) against a throwaway PostgreSQL
# server, which postgres.sh installs where missing, starts, and stops
# afterwards. Arguments go to the benchmark: --quick (a few seconds, for CI),
# --only read,write,modify,load,propagation,convergence. The Markdown results go to stdout, the
# build's output to stderr. Figures and how to read them: Benchmarks/README.md.
set -euo pipefail
package="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$package"
# Built before the server starts, so the build never competes with a measurement.
swift build -c release --product StowagePostgresBenchmarks >&2
binary="$(swift build -c release --show-bin-path)/StowagePostgresBenchmarks"
# The commit measured, for the results' header; "+ changes" when the tree differs from it.
if commit=$(git -C "$package" rev-parse --short HEAD 2>/dev/null); then
    git -C "$package" diff --quiet HEAD -- . 2>/dev/null || commit+=" + uncommitted changes"
    export STOWAGE_BENCHMARK_COMMIT=$commit
fi
exec bash "$package/Scripts/postgres.sh" run -- "$binary" "$@"
