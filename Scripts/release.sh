#!/usr/bin/env bash
# Publishes HEAD as release VERSION into bare git repositories under DEST, one
# per package, each tagged VERSION, as they are to be pushed:
#
#   DEST/stowage.git                 the whole repository, as it is (the core)
#   DEST/stowage-<name>.git          Integrations/<Name>, for each integration
#                                    (CommandLine gives stowage-command-line)
#
# SwiftPM depends by URL only on a package whose manifest is at a
# repository's root, so each integration gets a repository of its own: its
# history comes from `git subtree split --prefix Integrations/<Name>` (about
# 1 s each for 260 commits; the same commits every time, so a release only
# adds to what was pushed before), and a release commit on top makes its
# manifest stand alone: the lines between `// release: remove-begin` and
# `// release: remove-end` (the path dependencies on Tools/ and the targets
# that need them) are left out, with the folders those targets name, the
# core's path dependency becomes `.package(url: CORE-URL, from: VERSION)`,
# and `package: "Stowage"` names the core by its URL's identity.
#
# DEST may already hold the repositories of the last release (bare clones of
# the published ones): each release commit then has the last one as a second
# parent, so every branch moves forward and nothing published is rewritten.
#
# Usage: Scripts/release.sh VERSION DEST [--url-base URL] [--core-url URL]
#   --url-base   where the repositories are published, ending in /
#                (default file://DEST/; the release's is to be
#                https://github.com/stowage-swift/, the README's placeholder)
#   --core-url   the core's URL (default <url-base>stowage.git)
# Then, for each repository: git -C DEST/NAME.git push URL main VERSION
set -euo pipefail

usage() { sed -n '/^# Usage:/,/^# Then/p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }
[ $# -ge 2 ] || usage
version=$1 dest=$2
shift 2
url_base='' core_url=''
while [ $# -gt 0 ]; do
    case $1 in
        --url-base) [ $# -ge 2 ] || usage; url_base=$2; shift 2 ;;
        --core-url) [ $# -ge 2 ] || usage; core_url=$2; shift 2 ;;
        *) usage ;;
    esac
done
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || { echo "release.sh: $version is no semantic version (SwiftPM resolves only those)" >&2; exit 64; }

root=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)
url_base=${url_base:-file://$dest/}
core_url=${core_url:-${url_base}stowage.git}
# SwiftPM knows a package depended on by URL by its URL's last component, lowercased, less .git.
core_identity=$(basename "$core_url" .git | tr '[:upper:]' '[:lower:]')
head=$(git -C "$root" rev-parse --verify HEAD^{commit})
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Commits and tags need a name; a machine with none configured (CI) gets the script's.
if [ -z "$(git -C "$root" config user.name || true)" ]; then
    export GIT_AUTHOR_NAME="Stowage release" GIT_COMMITTER_NAME="Stowage release"
fi
if [ -z "$(git -C "$root" config user.email || true)" ]; then
    export GIT_AUTHOR_EMAIL="release@stowage.invalid" GIT_COMMITTER_EMAIL="release@stowage.invalid"
fi

# Makes DEST/NAME.git if it is not there, and refuses a VERSION it already has.
repository() {
    local repo="$dest/$1.git"
    [ -d "$repo" ] || git init -q --bare --initial-branch=main "$repo"
    if git --git-dir="$repo" rev-parse -q --verify "refs/tags/$version" >/dev/null; then
        echo "release.sh: $repo already has the tag $version" >&2
        exit 1
    fi
    echo "$repo"
}

# Points main and an annotated tag VERSION of a repository at a commit it has.
publish() {
    local repo=$1 commit=$2
    git --git-dir="$repo" update-ref refs/heads/main "$commit"
    git --git-dir="$repo" tag -a -m "Stowage $version" "$version" "$commit"
}

# The core: HEAD as it is, full history.
core=$(repository stowage)
git -C "$root" push -q "$core" "$head:refs/heads/main"   # fails unless it moves main forward
publish "$core" "$head"
echo "stowage: $head, tagged $version ($core_url)"

# The published manifest of an integration, from its repository one on standard input;
# the folders of the targets it leaves out go to the file named by $1.
published_manifest() {
    awk -v url="$core_url" -v version="$version" -v identity="$core_identity" -v removed="$1" '
        function fail(message) { print "release.sh: Package.swift line " NR ": " message > "/dev/stderr"; failed = 1; exit 1 }
        /\/\/ release: remove-begin/ { if (skipping) fail("remove-begin inside a block"); skipping = 1; next }
        /\/\/ release: remove-end/ { if (!skipping) fail("remove-end with no remove-begin"); skipping = 0; next }
        /\.package\(name: "Stowage", path: "\.\.\/\.\."\)/ {
            sub(/\.package\(name: "Stowage", path: "\.\.\/\.\."\)/, ".package(url: \"" url "\", from: \"" version "\")")
            cores++
            print
            next
        }
        skipping {
            if (match($0, /path: "[^"]*"/)) {
                path = substr($0, RSTART + 7, RLENGTH - 8)
                if (path !~ /^\.\.\//) print path > removed
            }
            next
        }
        { gsub(/package: "Stowage"/, "package: \"" identity "\""); print }
        END {
            if (failed) exit 1
            if (skipping) { print "release.sh: Package.swift: a remove-begin with no remove-end" > "/dev/stderr"; exit 1 }
            if (cores != 1) { print "release.sh: Package.swift: " cores + 0 " path dependencies on the core (\"../..\"), not 1" > "/dev/stderr"; exit 1 }
        }'
}

for folder in $(git -C "$root" ls-tree --name-only "$head" Integrations/); do
    name=${folder#Integrations/}
    git -C "$root" cat-file -e "$head:$folder/Package.swift" 2>/dev/null || continue
    # CommandLine gives stowage-command-line.
    repo_name=stowage-$(sed 's/\([a-z0-9]\)\([A-Z]\)/\1-\2/g' <<<"$name" | tr '[:upper:]' '[:lower:]')
    repo=$(repository "$repo_name")

    split=$(git -C "$root" subtree split -q --prefix "$folder" "$head")
    git -C "$root" push -q "$repo" "$split:refs/release/split"

    : > "$work/removed"
    git --git-dir="$repo" cat-file blob "$split:Package.swift" | published_manifest "$work/removed" > "$work/Package.swift"
    if leftover=$(grep -n 'path: "\.\./' "$work/Package.swift"); then
        echo "release.sh: $folder/Package.swift still names a folder outside the package once published; put it between release markers:" >&2
        echo "$leftover" >&2
        exit 1
    fi

    # The release commit: the split tree, with that manifest and without the folders of the targets it left out.
    export GIT_DIR=$repo GIT_INDEX_FILE=$work/index
    git read-tree "$split"
    git update-index --cacheinfo "100644,$(git hash-object -w "$work/Package.swift"),Package.swift"
    while read -r path; do
        [ -n "$path" ] || continue
        # Mode 0 takes an entry out of the index (git update-index --index-info, which needs no work tree).
        git ls-tree -r -z "$split" -- "$path" | sed -z 's/^[0-9]* /0 /' | git update-index -z --index-info
    done < "$work/removed"
    parents=(-p "$split")
    if previous=$(git rev-parse -q --verify refs/heads/main); then parents+=(-p "$previous"); fi
    commit=$(git commit-tree "$(git write-tree)" "${parents[@]}" \
        -m "Release $version" \
        -m "Integrations/$name of stowage $head, on its own: the manifest depends on the core by URL, $core_url from $version, and leaves out what builds only inside the core's repository.")
    git update-ref -d refs/release/split
    unset GIT_DIR GIT_INDEX_FILE
    publish "$repo" "$commit"
    echo "$repo_name: $commit, tagged $version (Integrations/$name; ${url_base}$repo_name.git)"
done
