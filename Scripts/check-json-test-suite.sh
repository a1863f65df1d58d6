#!/usr/bin/env bash
# Runs StowageJSONFile's JSON parser over every file of nst/JSONTestSuite's
# test_parsing folder: each y_ file must be accepted, each n_ file rejected,
# and no file may crash it; what it did with each i_ (implementation-defined)
# file is printed. Exits non-zero on any violation.
#
# The suite is not part of the repository. It is looked for beside the
# repository, in ../shared/JSONTestSuite/test_parsing, or wherever
# JSON_TEST_SUITE points; without it the check fails.
#
# The check itself is the StowageJSONTestSuiteCheck executable (Tools/StowageJSONTestSuiteCheck) of this package: it
# reaches the package-internal parser through `package` access, and a crash
# makes it exit non-zero like any other failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
suite="${JSON_TEST_SUITE:-$root/../shared/JSONTestSuite/test_parsing}"

if [ ! -d "$suite" ]; then
    echo "check-json-test-suite.sh: no folder at $suite." >&2
    echo "Clone https://github.com/nst/JSONTestSuite and set JSON_TEST_SUITE to its test_parsing folder to run it." >&2
    exit 1
fi
suite=$(cd "$suite" && pwd)

echo "Checking the JSON parser against $suite"
if swift run --package-path "$root" StowageJSONTestSuiteCheck "$suite"; then
    echo "JSONTestSuite: every y_ file accepted, every n_ file rejected, no crash."
else
    echo "JSONTestSuite: the parser broke a rule above (or crashed)." >&2
    exit 1
fi
