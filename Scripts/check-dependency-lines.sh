#!/usr/bin/env bash
# Checks that the dependency lines a page gives resolve as written: for each
# of README.md, Guides/*.md and Integrations/*/README.md that shows
# `.package(path: "../<clone>/…")`, a throwaway consumer package in a
# temporary folder, beside a link named <clone> to this checkout, depends on
# exactly that line and the page's `.product(name:package:)` lines (one
# consumer per package line), and SwiftPM loads its package graph (`swift package
# show-dependencies`: manifests, package names, product names; nothing is
# built). A page that gives a product with no package line fails too.
#
# SwiftPM names a package found by path after its folder, lowercased
# (`Integrations/Logging` is "logging"), so this is what catches a line such
# as `.product(name: "StowageLogging", package: "StowageLogging")`.
#
# Lines by the release's URLs (`.package(url: "https://github.com/stowage-swift/…")`
# and the products of those packages) resolve only once published:
# Scripts/check-release.sh publishes the checkout and builds a package with
# every such line, so they are left to it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

failed=0
checked=0
for page in "$root/README.md" "$root"/Guides/*.md "$root"/Integrations/*/README.md; do
    name=${page#"$root/"}
    packages=$(grep -o '\.package(path: "\.\./[^"]*")' "$page" | sort -u || true)
    released=$(grep -o '\.package(url: "https://github\.com/stowage-swift/[^"]*"' "$page" | sed 's/.*\/\([^/"]*\)"$/\1/; s/\.git$//' | tr '[:upper:]' '[:lower:]' | sort -u || true)
    products=$(grep -o '\.product(name: "[^"]*", package: "[^"]*")' "$page" | sort -u | while read -r product; do
        package=$(sed 's/.*package: "\(.*\)")/\1/' <<<"$product" | tr '[:upper:]' '[:lower:]')
        grep -qxF "$package" <<<"$released" || echo "$product"
    done || true)
    [ -z "$packages" ] && [ -z "$products" ] && continue
    if [ -z "$packages" ]; then
        echo "$name: gives $products but no .package(path:) line for it" >&2
        failed=1
        continue
    fi
    # One consumer per package line (a page may give alternatives, as the README's
    # ../Stowage-main), with the page's products but those naming another line's package.
    while read -r line; do
        path=$(sed 's/.*path: "\(.*\)")/\1/' <<<"$line")
        others=$(grep -vxF "$line" <<<"$packages" | sed 's/.*\/\([^/"]*\)")$/\1/' | tr '[:upper:]' '[:lower:]' || true)
        wanted=$(while read -r product; do
            [ -z "$product" ] && continue
            package=$(sed 's/.*package: "\(.*\)")/\1/' <<<"$product" | tr '[:upper:]' '[:lower:]')
            grep -qxF "$package" <<<"$others" || echo "$product"
        done <<<"$products")
        folder="$work/$checked"
        mkdir -p "$folder/consumer/Sources/Consumer"
        clone=$(cut -d/ -f2 <<<"$path")
        ln -s "$root" "$folder/$clone"   # the clone the page names is this checkout
        {
            echo '// swift-tools-version: 6.2'
            echo 'import PackageDescription'
            echo 'let package = Package('
            echo '    name: "Consumer",'
            echo '    platforms: [.macOS(.v15)],'
            echo "    dependencies: [$line],"
            echo '    targets: ['
            echo '        .target(name: "Consumer", dependencies: ['
            [ -n "$wanted" ] && sed 's/^/            /; s/$/,/' <<<"$wanted"
            echo '        ]),'
            echo '    ]'
            echo ')'
        } > "$folder/consumer/Package.swift"
        touch "$folder/consumer/Sources/Consumer/Consumer.swift"
        checked=$((checked + 1))
        if output=$(swift package --package-path "$folder/consumer" --scratch-path "$folder/consumer/.build" show-dependencies 2>&1); then
            echo "$name: $line and its $(grep -c . <<<"$wanted" || true) product lines resolve"
        else
            echo "$name: its dependency lines do not resolve:" >&2
            sed 's/^/    /' <<<"$line"$'\n'"$wanted" >&2
            grep 'error:' <<<"$output" | sed 's/^/  /' >&2
            failed=1
        fi
    done <<<"$packages"
done
[ "$failed" = 0 ] || exit 1
echo "All $checked dependency lines resolve, with their products."
