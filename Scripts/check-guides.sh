#!/usr/bin/env bash
# Compiles every ```swift block of README.md and Guides/*.md, so a guide can
# not drift from the API. Blocks of one document are compiled together, in
# order, as the main.swift of one executable that depends on this package; a
# block that starts with `// swift-tools-version` is a package manifest and is
# checked on its own with `swift package dump-package`. Then each document's
# program runs, and must print exactly what the document shows as printed
# (Scripts/guide-output.py; the convention is in Guides/Development.md, "How
# a guide shows output").
#
#   Scripts/check-guides.sh [SWIFT BUILD OPTIONS...]
#
# The options go to every `swift build`; CI passes the build folder and the
# options its integration packages share, so the core's modules compile once
# for all of them, and the guides' code runs under ThreadSanitizer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
options=("$@")
work="$root/.build/guide-check"
rm -rf "$work/Sources" "$work/Manifests"
mkdir -p "$work/Sources" "$work/Manifests"

targets=()
documents=()
for document in "$root/README.md" "$root"/Guides/*.md; do
    # A guide whose code needs an integration's packages is compiled by that integration's package.
    grep -q '^<!-- Compiled by Integrations/' "$document" && continue
    name=$(basename "$document" .md | tr -cd '[:alnum:]')
    python3 "$root/Scripts/guide-output.py" generate "$document" "$work/Sources/Guide$name"
    python3 - "$document" "$work" "$name" <<'PY'
import pathlib, re, sys
document, work, name = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
blocks = re.findall(r"^```swift[ \t]*\n(.*?)^```", document.read_text(), flags=re.S | re.M)
manifests = [block for block in blocks if block.lstrip().startswith("// swift-tools-version")]
for number, manifest in enumerate(manifests, 1):
    folder = work / "Manifests" / f"{name}{number}"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "Package.swift").write_text(manifest)
PY
    if [ -d "$work/Sources/Guide$name" ]; then targets+=("Guide$name"); documents+=("$document"); fi
done

{
    echo '// swift-tools-version: 6.2'
    echo 'import PackageDescription'
    echo 'let package = Package('
    echo '    name: "GuideCheck",'
    echo '    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],'
    echo '    dependencies: [.package(name: "Stowage", path: "../..")],'
    echo '    targets: ['
    for target in "${targets[@]}"; do
        echo "        .executableTarget(name: \"$target\", dependencies: ["
        echo '            .product(name: "Stowage", package: "Stowage"),'
        echo '            .product(name: "StowageInMemory", package: "Stowage"),'
        echo '            .product(name: "StowageJSONFile", package: "Stowage"),'
        echo '            .product(name: "StowageEnvironment", package: "Stowage"),'
        echo '            .product(name: "StowageFlags", package: "Stowage"),'
        echo '            .product(name: "StowageTesting", package: "Stowage"),'
        echo '            .product(name: "StowageUserDefaults", package: "Stowage"),'
        echo '            .product(name: "StowageLocking", package: "Stowage"),'
        echo '        ]),'
    done
    echo '    ],'
    echo '    swiftLanguageModes: [.v6]'
    echo ')'
    # App code that tries to reach a store's backend requirements: it must not compile, so it joins
    # the package only for that check (below), and one `swift build` compiles every guide.
    echo 'if Context.environment["GUIDE_CHECK_BACKEND_ACCESS"] != nil {'
    echo '    package.targets.append(.executableTarget(name: "BackendAccessCheck", dependencies: [.product(name: "StowageInMemory", package: "Stowage")]))'
    echo '}'
} > "$work/Package.swift"
mkdir -p "$work/Sources/BackendAccessCheck"
cat > "$work/Sources/BackendAccessCheck/main.swift" <<'SWIFT'
import StowageInMemory
let store = InMemoryStore.default
try store.setStoredValue(5, forKey: "launchCount")
try store.setStoredValue(5, forKey: "launchCount", BackendAccess())
try store.removeStoredValue(forKey: "launchCount", .granted)
_ = try store.replaceStoredValue(forKey: "launchCount", expecting: nil, with: 5)
_ = try store.replaceStoredValues(expecting: [:], with: ["launchCount": 5])
_ = try store.storedValue(forKey: "launchCount")
_ = store.storedEntries()
SWIFT

for manifest in "$work"/Manifests/*/; do
    [ -e "$manifest/Package.swift" ] || continue
    echo "Checking manifest block $(basename "$manifest")"
    swift package --package-path "$manifest" dump-package > /dev/null
done

echo "Compiling guide code: ${targets[*]}"
swift build --package-path "$work" -Xswiftc -warnings-as-errors "${options[@]}"
programs=$(swift build --package-path "$work" -Xswiftc -warnings-as-errors "${options[@]}" --show-bin-path)
echo "Every guide block compiles."

# Each guide's code runs, in a scratch folder of its own with a known
# environment, and prints exactly what the guide shows
# (Scripts/guide-output.py; the convention is in Guides/Development.md).
failed=0
for index in "${!targets[@]}"; do
    python3 "$root/Scripts/guide-output.py" run "${documents[$index]}" -- "$programs/${targets[$index]}" || failed=1
done
[ "$failed" = 0 ] || { echo "A guide's code printed what the guide does not show." >&2; exit 1; }

# App code can not call a store's backend requirements, which would bypass
# the caches of references and observers: every line after the second of
# BackendAccessCheck/main.swift must be an error.
if output=$(GUIDE_CHECK_BACKEND_ACCESS=1 swift build --package-path "$work" -Xswiftc -warnings-as-errors "${options[@]}" --target BackendAccessCheck 2>&1); then
    echo "App code compiled a call to a store's backend requirements; it must not." >&2
    exit 1
fi
lines=$(wc -l < "$work/Sources/BackendAccessCheck/main.swift")
for line in $(seq 3 "$lines"); do
    if ! grep -q "BackendAccessCheck/main.swift:$line:[0-9]*: error" <<<"$output"; then
        echo "Line $line of BackendAccessCheck/main.swift compiled; app code must not reach backend requirements:" >&2
        sed -n "${line}p" "$work/Sources/BackendAccessCheck/main.swift" >&2
        exit 1
    fi
done
echo "App code can not call a store's backend requirements ($((lines - 2)) attempts refused)."
