#!/usr/bin/env bash
# Runs the `stowage` examples of this package's README.md and of the
# feature-flags guide, every ```console block in order, in one scratch
# folder, and fails unless each command prints exactly what the page shows.
# A line starting with "$ " is a command; the lines after it, up to the next
# command or the end of the block, are its output (standard output and
# standard error together).
#
#   Scripts/check-examples.sh [build folder]   # default: .build/debug, as `swift test` leaves it
set -euo pipefail
package=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$package/../.." && pwd)
bin="${1:-$package/.build/debug}"
[ -x "$bin/stowage" ] && [ -x "$bin/StowageFlagsProgram" ] || swift build --package-path "$package"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# What the examples start from: a program's flag manifest, a settings file,
# and the payload of flag definitions the feature-flags guide's targeting example applies.
(cd "$scratch" && "$bin/StowageFlagsProgram" shop-flags.overrides.json --once)
cat > "$scratch/rollout.json" <<'JSON'
{"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
  "targeting": {"if": [{"==": [{"var": "tenant"}, "acme"]}, "on", {"fractional": [["on", 5], ["off", 95]]}]},
  "metadata": {"owner": "checkout"}}}}
JSON
printf '{\n  "database": {\n    "password": "s3cr3t"\n  },\n  "server": {\n    "port": 8080\n  },\n  "theme": "light"\n}\n' > "$scratch/settings.json"

python3 - "$bin" "$scratch" "$package/README.md" "$root/Guides/FeatureFlags.md" <<'PY'
import os, re, subprocess, sys
bin_dir, scratch, documents = sys.argv[1], sys.argv[2], sys.argv[3:]
environment = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ["PATH"])
environment.pop("STOWAGE_FLAGS_MANIFEST", None)
checked = failed = 0
for document in documents:
    text = open(document).read()
    for block in re.findall(r"^```console[ \t]*\n(.*?)^```", text, flags=re.S | re.M):
        steps, current = [], None
        for line in block.splitlines():
            if line.startswith("$ "):
                current = [line[2:], []]
                steps.append(current)
            elif current is not None:
                current[1].append(line)
        for command, expected in steps:
            run = subprocess.run(["bash", "-c", command], cwd=scratch, env=environment, capture_output=True, text=True)
            printed = (run.stdout + run.stderr).rstrip("\n").splitlines()
            checked += 1
            if printed != expected:
                failed += 1
                print(f"{os.path.basename(document)}: $ {command}\n  expected:\n" + "\n".join("    " + l for l in expected)
                      + "\n  printed:\n" + "\n".join("    " + l for l in printed))
print(f"{checked - failed} passed, {failed} failed: the stowage examples")
sys.exit(1 if failed else 0)
PY
