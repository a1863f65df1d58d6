#!/usr/bin/env bash
# Runs StowageFlags' JsonLogic evaluator (flagd's targeting language) over
# json-logic/compat-tables' suites, with flagd's own evaluator as the referee:
# every case of the classic operators' files must give the suite's outcome,
# or flagd's where the two disagree; the deliberate differences are listed,
# each with its reason (Tools/StowageJSONLogicCompat). The newer dialects'
# files run too, as information. Then a differential: PAIRS (20,000 unless
# STOWAGE_DIFFERENTIAL_PAIRS says otherwise) generated targeting rules and
# contexts, fractional, sem_ver, starts_with and ends_with among them
# (Scripts/flagd-differential.py), must each give what flagd's evaluator
# gives; a new seed each run, printed, so a failure can be run again. Last,
# flag definitions: 3,000 generated payloads (state, variants, default
# variant, targeting, $evaluators, metadata) evaluated for four contexts each,
# and every payload of flag definitions in flagd's reference pages
# (../shared/flagd), must resolve as flagd's evaluator resolves them: value,
# variant, reason and error code (Scripts/flagd-definitions-differential.py).
#
# The suites are not part of the repository: they are read from
# ../shared/json-logic-compat/suites, or wherever JSON_LOGIC_COMPAT points,
# and the check fails without them. flagd's evaluator is PyPI's
# openfeature-flagd-core 2.0.0, installed with pip where missing.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suites="${JSON_LOGIC_COMPAT:-$root/../shared/json-logic-compat/suites}"
if [ ! -f "$suites/index.json" ]; then
    echo "check-json-logic-compat.sh: no suites at $suites (json-logic/compat-tables' suites folder, with its index.json)." >&2
    exit 1
fi
suites=$(cd "$suites" && pwd)

if ! python3 -c 'import openfeature.contrib.tools.flagd.core' 2> /dev/null \
    || [ "$(python3 -c 'import importlib.metadata as m; print(m.version("openfeature-flagd-core"))')" != 2.0.0 ]; then
    echo "Installing openfeature-flagd-core 2.0.0 (flagd's evaluator) with pip"
    python3 -m pip install --quiet --disable-pip-version-check "openfeature-flagd-core==2.0.0"
fi

oracle=$(mktemp "${TMPDIR:-/tmp}/stowage-json-logic-oracle.XXXXXX")
trap 'rm -f "$oracle"' EXIT
python3 "$root/Scripts/json-logic-oracle.py" "$suites" > "$oracle"
swift run --package-path "$root" StowageJSONLogicCompat "$suites" --oracle "$oracle" --all

pairs=${STOWAGE_DIFFERENTIAL_PAIRS:-20000}
seed=${STOWAGE_DIFFERENTIAL_SEED:-$RANDOM$RANDOM}
echo "Differential against flagd's evaluator: $pairs pairs, seed $seed (STOWAGE_DIFFERENTIAL_SEED=$seed runs them again)"
python3 "$root/Scripts/flagd-differential.py" "$pairs" "$seed" > "$oracle"
swift run --package-path "$root" StowageJSONLogicCompat --pairs "$oracle"

reference="${FLAGD_REFERENCE:-$root/../shared/flagd}"
if [ ! -f "$reference/flag-definitions.md" ]; then
    echo "check-json-logic-compat.sh: no flagd reference pages at $reference (../shared/flagd, or FLAGD_REFERENCE)." >&2
    exit 1
fi
definitions=${STOWAGE_DIFFERENTIAL_DEFINITIONS:-3000}
echo "Flag definitions against flagd's evaluator: $definitions payloads, seed $seed, and flagd's reference pages"
python3 "$root/Scripts/flagd-definitions-differential.py" "$definitions" "$seed" "$reference" > "$oracle"
swift run --package-path "$root" StowageJSONLogicCompat --definitions "$oracle"
