#!/usr/bin/env bash
# Checks that Stowage, once published, is used the way README.md's "Install"
# section says:
#
# 1. The lines agree: the `.package(url: "https://github.com/stowage-swift/…")`
#    and `.product(name: …, package: "stowage…")` lines of README.md's Install
#    section are those of Tests/ReleaseConsumer/Package.swift, a user's
#    package that depends on every published product; every such line that
#    another page (Integrations/*/README.md, Guides/*.md) gives is one of them.
# 2. Scripts/release.sh publishes HEAD, as a release would, to bare git
#    repositories in a temporary folder, tagged with the version the README
#    gives (from: "…").
# 3. The consumer, with https://github.com/stowage-swift/ replaced by that
#    folder's file:// URL and nothing else changed, resolves every package by
#    URL and version, builds, and prints exactly
#    Tests/ReleaseConsumer/expected-output.txt: one line from each product.
# 4. The `stowage` tool runs (`--help`) both ways the README gives: with
#    `swift run stowage` in the consumer, which depends on its package, and
#    from a clone of its published repository at the tag.
#
# Usage: Scripts/check-release.sh [--scratch-path PATH] [SWIFT BUILD OPTIONS...]
#   --scratch-path   the build folder of the consumer and of the tool's package
#                    (default .build/release-check). Options such as
#                    --sanitize=thread go to every swift build and run. In CI, the
#                    integration packages' build folder serves, with their options:
#                    postgres-nio, swift-nio and the rest are built already (see .ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
placeholder='https://github.com/stowage-swift/'
consumer="$root/Tests/ReleaseConsumer"

scratch="$root/.build/release-check"
options=()
while [ $# -gt 0 ]; do
    case $1 in
        --scratch-path) scratch=$2; shift 2 ;;
        --scratch-path=*) scratch=${1#*=}; shift ;;
        *) options+=("$1"); shift ;;
    esac
done
mkdir -p "$scratch"
scratch=$(cd "$scratch" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The lines a page gives, one per line, sorted: packages by the release's URLs, products of those packages.
release_lines() {
    grep -o "\.package(url: \"${placeholder}[^\"]*\", from: \"[^\"]*\")\|\.product(name: \"[^\"]*\", package: \"stowage[^\"]*\")" "$@" | sort -u || true
}
install_section=$(awk '/^## /{ inside = ($0 == "## Install") } inside' "$root/README.md")
[ -n "$install_section" ] || { echo "check-release.sh: README.md has no \"## Install\" section" >&2; exit 1; }
readme_lines=$(release_lines <<<"$install_section")
consumer_lines=$(release_lines "$consumer/Package.swift")
if [ "$readme_lines" != "$consumer_lines" ]; then
    echo "check-release.sh: README.md's Install section and Tests/ReleaseConsumer/Package.swift give different lines (< README, > consumer):" >&2
    diff <(echo "$readme_lines") <(echo "$consumer_lines") >&2 || true
    exit 1
fi
for page in "$root/README.md" "$root"/Integrations/*/README.md "$root"/Guides/*.md; do
    extra=$(comm -23 <(release_lines "$page") <(echo "$consumer_lines"))
    if [ -n "$extra" ]; then
        echo "check-release.sh: ${page#"$root/"} gives lines the consumer does not check:" >&2
        echo "$extra" >&2
        exit 1
    fi
done
version=$(grep -o 'from: "[^"]*"' <<<"$readme_lines" | sort -u)
[ "$(grep -c . <<<"$version")" = 1 ] || { echo "check-release.sh: the Install section gives more than one version: $version" >&2; exit 1; }
version=$(sed 's/from: "\(.*\)"/\1/' <<<"$version")
echo "README.md's Install section and the consumer give the same $(grep -c . <<<"$readme_lines") lines, for version $version"

# 2. A new folder each run: SwiftPM keeps the tags it fetched from a URL, and would build a tag published before.
start=$SECONDS
"$root/Scripts/release.sh" "$version" "$work/repositories"
echo "Published in $((SECONDS - start)) s"

# 3. The consumer, its URLs made the local repositories'.
mkdir -p "$work/consumer"
cp -R "$consumer/Package.swift" "$consumer/Sources" "$work/consumer/"
sed -i.bak "s|$placeholder|file://$work/repositories/|g" "$work/consumer/Package.swift"
changed=$(diff "$work/consumer/Package.swift.bak" "$work/consumer/Package.swift" | grep -c "^> *\.package(url:" || true)
rm "$work/consumer/Package.swift.bak"
echo "The consumer's manifest with $changed URLs made file://$work/repositories/…"
start=$SECONDS
swift build --package-path "$work/consumer" --scratch-path "$scratch" "${options[@]}"
echo "The consumer resolved and built in $((SECONDS - start)) s"
binary=$(swift build --package-path "$work/consumer" --scratch-path "$scratch" "${options[@]}" --show-bin-path)/ReleaseConsumer
# A home of its own, where UserDefaults writes its suite.
mkdir -p "$work/home"
HOME="$work/home" "$binary" > "$work/output.txt"
if ! diff -u "$consumer/expected-output.txt" "$work/output.txt"; then
    echo "check-release.sh: the consumer printed otherwise than Tests/ReleaseConsumer/expected-output.txt (above)" >&2
    exit 1
fi
echo "The consumer printed its $(grep -c . "$work/output.txt") expected lines"

# 4. The tool, run from the consumer, then from a clone of its repository at the tag.
swift run --package-path "$work/consumer" --scratch-path "$scratch" "${options[@]}" stowage --help > "$work/help.txt"
grep -q '^USAGE: stowage ' "$work/help.txt" || { cat "$work/help.txt"; echo "check-release.sh: swift run stowage --help printed no usage" >&2; exit 1; }
echo "swift run stowage --help ran in the consumer"
start=$SECONDS
git -c advice.detachedHead=false clone -q --branch "$version" "file://$work/repositories/stowage-command-line.git" "$work/stowage-command-line"
swift run --package-path "$work/stowage-command-line" --scratch-path "$scratch" "${options[@]}" stowage --help > "$work/help.txt"
grep -q '^USAGE: stowage ' "$work/help.txt" || { cat "$work/help.txt"; echo "check-release.sh: stowage --help printed no usage" >&2; exit 1; }
echo "stowage --help ran from a clone of stowage-command-line $version, built in $((SECONDS - start)) s"
echo "The release checks out."
