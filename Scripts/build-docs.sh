#!/usr/bin/env bash
# Builds the DocC documentation of every public module with the toolchain's
# own `docc`, so no package needs swift-docc-plugin, and fails on any warning
# (an unresolved ``link``, an undocumented parameter, ...).
#
#   Scripts/build-docs.sh                                  # the archives go to .build-docs/<Module>.doccarchive
#   Scripts/build-docs.sh --package Integrations/Logging   # to Integrations/Logging/.build-docs/StowageLogging.doccarchive
#   Scripts/build-docs.sh --symbol-graphs DIR [...]        # from graphs already dumped
#   Scripts/build-docs.sh --package P -- OPTIONS           # OPTIONS go to `swift package`, in P, before dump-symbol-graph
#
# Each module's catalog is Sources/<Module>/<Module>.docc in its package: its
# landing page and topic groups, and its articles, which are symbolic links to
# the guides in Guides/, so each guide has one source that reads well on a code
# host. (A guide named after a type is linked under another name,
# UsingJSONFileStore.md say: an article named like a symbol would hide it.)
#
# The symbol graphs (public symbols only) come from `swift package
# dump-symbol-graph`, which builds the package's library modules first: nothing,
# when `swift test` or `swift build` has just built them with the same OPTIONS
# (see Scripts/check-api.sh for the ones CI builds each package with). They are
# kept in <package>/.build-docs/symbol-graphs for Scripts/check-api.sh, so the
# two scripts dump them once:
#
#   Scripts/build-docs.sh && Scripts/check-api.sh --symbol-graphs .build-docs/symbol-graphs
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
usage() { sed -n '6,9s/^# //p' "$0" >&2; exit 2; }

package=.
given=
while [ $# -gt 0 ]; do
    case "$1" in
        --package) package=${2:?--package needs a folder}; shift ;;
        --symbol-graphs) given=$(cd "${2:?--symbol-graphs needs a folder}" && pwd); shift ;;
        --) shift; break ;;
        *) usage ;;
    esac
    shift
done
options=("$@")
cd "$root/$package"
out="$PWD/.build-docs"
mkdir -p "$out"
rm -rf "$out"/*.doccarchive "$out/graphs"

source "$root/Scripts/library-modules.sh"
library_modules "$package"

graphs="$out/symbol-graphs"
if [ -z "$given" ]; then
    dumped=$(dump_symbol_graphs "$out/dump-symbol-graph.log" "${options[@]}")
    # A copy: the next dump in the same build folder replaces the dumped ones.
    rm -rf "$graphs"
    cp -R "$dumped" "$graphs"
else
    graphs=$given
fi

for module in "${modules[@]}"; do
    mkdir -p "$out/graphs/$module"
    cp "$graphs/$module.symbols.json" "$out/graphs/$module/"
    find "$graphs" -maxdepth 1 -name "$module@*.symbols.json" -exec cp {} "$out/graphs/$module/" \;
    echo "==> $module"
    [ -d "Sources/$module/$module.docc" ] || { echo "no catalog $package/Sources/$module/$module.docc" >&2; exit 1; }
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$out/graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.stowage.$module" \
        --output-path "$out/$module.doccarchive" \
        --warnings-as-errors
done
[ ${#modules[@]} = 1 ] && what="module" || what="modules"
echo "Documentation of ${#modules[@]} $what in $out, with no warnings."
