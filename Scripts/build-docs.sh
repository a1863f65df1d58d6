#!/usr/bin/env bash
# Builds the DocC documentation of every public module with the toolchain's
# own `docc`, so the root package needs no swift-docc-plugin, and fails on any
# warning (an unresolved ``link``, an undocumented parameter, ...).
#
#   Scripts/build-docs.sh            # the archives go to .build-docs/<Module>.doccarchive
#
# Each module's catalog is Sources/<Module>/<Module>.docc: its landing page and
# topic groups, and its articles, which are symbolic links to the guides in
# Guides/, so each guide has one source that reads well on a code host. (A
# guide named after a type is linked under another name, UsingJSONFileStore.md
# say: an article named like a symbol would hide it.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out="$root/.build-docs"
rm -rf "$out"
mkdir -p "$out"

# The symbol graphs of every module, public symbols only, from the debug build
# (built here if `swift test` has not built it already).
swift package dump-symbol-graph --minimum-access-level public > "$out/dump-symbol-graph.log" 2>&1 \
    || { cat "$out/dump-symbol-graph.log"; exit 1; }
graphs=$(sed -n 's/^Files written to //p' "$out/dump-symbol-graph.log" | tail -1)
[ -d "$graphs" ] || { echo "no symbol graphs in $graphs" >&2; exit 1; }

modules=(Stowage StowageInMemory StowageJSONFile StowageEnvironment StowageUserDefaults StowageFlags StowageTesting)
for module in "${modules[@]}"; do
    mkdir -p "$out/graphs/$module"
    cp "$graphs/$module.symbols.json" "$out/graphs/$module/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$out/graphs/$module/" \;
    echo "==> $module"
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$out/graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.stowage.$module" \
        --output-path "$out/$module.doccarchive" \
        --warnings-as-errors
done
echo "Documentation of ${#modules[@]} modules in $out, with no warnings."
