# Sourced by Scripts/build-docs.sh and Scripts/check-api.sh, which document and record the same
# modules from the same symbol graphs. Run in the package's folder.

# Sets `modules` to the package's public library modules: the root's library products, or the
# folders of an integration's Sources/.
library_modules() {
    if [ "$1" = . ]; then
        modules=(Stowage StowageInMemory StowageJSONFile StowageEnvironment StowageUserDefaults StowageFlags StowageTesting StowageJSON StowageHistory StowageLocking)
    else
        modules=()
        for folder in Sources/*/; do modules+=("$(basename "$folder")"); done
    fi
}

# dump_symbol_graphs LOG [OPTIONS...]: dumps the public symbol graphs with `swift package OPTIONS
# dump-symbol-graph`, which reuses a build made with the same OPTIONS, and prints their folder.
dump_symbol_graphs() {
    local log=$1 dumped
    shift
    swift package "$@" dump-symbol-graph --minimum-access-level public > "$log" 2>&1 || { cat "$log" >&2; return 1; }
    dumped=$(sed -n 's/^Files written to //p' "$log" | tail -1)
    [ -d "$dumped" ] || { cat "$log" >&2; echo "no symbol graphs in '$dumped'" >&2; return 1; }
    echo "$dumped"
}
