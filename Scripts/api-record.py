#!/usr/bin/env python3
"""Prints the record of one module's public API from its DocC symbol graphs.

    Scripts/api-record.py DIR [--module NAME]

DIR holds the symbol graphs `swift package dump-symbol-graph --minimum-access-level
public` writes: `<Module>.symbols.json`, and `<Module>@<Other>.symbols.json` for
what the module adds to another module's types. With --module, only that module's
graphs in DIR are read (DIR may then hold every module's graphs); without it, DIR
must hold one module's.

The record has one line per public or open symbol, its path and its declaration:

    StorageReference.value: var value: Value? { get }

and one line per conformance (or superclass) of a public type:

    InMemoryStore: Swift.Sendable

A type of the module itself is named by its path; any other type by its module
and path (`Swift.Int`, `Stowage.StorageError`), so what a module adds to another
module's type reads `Stowage.StorageError.Code.corruptFile: static let ...`.
Brackets end a line with what its declaration does not say: `[requirement]` for
a protocol's requirement, `[where ...]` for the constraints of the extension it
is declared in (beyond its type's own), `[@available(...)]` for its availability.

The record is sorted and holds no file path, line number, USR or compiler
version, so two runs on the same code print the same text. Left out: members a
type inherits from a protocol's default implementation or a superclass (their
identifier holds `::SYNTHESIZED::`: they are the protocol's API, and vary with
the standard library), SPI, names starting with an underscore, and the marker
protocols every type conforms to unless it says otherwise (Copyable, Escapable,
SendableMetatype), which the graphs list for some types and not for others. (So
a type's `~Copyable` is not recorded: its declaration in the graph omits it.)
"""

import argparse
import glob
import json
import os
import shutil
import subprocess
import sys

# Conformances every type has unless it suppresses them, and the one every Sendable
# type has. The graphs list them for some types and not others (for those an
# extension of the type declares conformances in, say), so they are left out.
IMPLIED = {"Swift.Copyable", "Swift.Escapable", "Swift.SendableMetatype"}

# Linux's Foundation is split into modules that are one `Foundation` on Apple's
# platforms; one name keeps the record the same where it is made on either.
MODULE_ALIASES = {
    "FoundationEssentials": "Foundation",
    "FoundationInternationalization": "Foundation",
}


def module_name(name):
    return MODULE_ALIASES.get(name, name)


def qualified(name):
    """`FoundationEssentials.Date` reads `Foundation.Date`."""
    head, dot, rest = name.partition(".")
    return module_name(head) + dot + rest if dot else name


def collapse(text):
    return " ".join(text.split())


def declaration(symbol):
    return collapse("".join(f["spelling"] for f in symbol.get("declarationFragments", [])))


def constraint_text(constraint):
    operator = "==" if constraint["kind"] == "sameType" else ":"
    return f"{constraint['lhs']}{' ' if operator == '==' else ''}{operator} {constraint['rhs']}"


def version_text(version):
    return ".".join(str(version[part]) for part in ("major", "minor", "patch") if part in version)


def availability_text(entry):
    parts = [entry.get("domain", "*")]
    if entry.get("isUnconditionallyUnavailable"):
        parts.append("unavailable")
    if entry.get("isUnconditionallyDeprecated"):
        parts.append("deprecated")
    for key in ("introduced", "deprecated", "obsoleted"):
        if key in entry:
            parts.append(f"{key}: {version_text(entry[key])}")
    for key in ("renamed", "message"):
        if key in entry:
            parts.append(f"{key}: {json.dumps(entry[key], ensure_ascii=False)}")
    return "@available(" + ", ".join(parts) + ")"


def demangle(usrs):
    """Names of types known only by their USR (`s:Si` is `Swift.Int`), from the toolchain's demangler."""
    usrs = sorted(u for u in usrs if u.startswith("s:"))
    if not usrs:
        return {}
    tool = shutil.which("swift-demangle")
    command = [tool] if tool else ["swift", "demangle"]
    try:
        result = subprocess.run(
            command + ["--compact"] + ["$s" + u[2:] for u in usrs],
            capture_output=True, text=True, check=True,
        )
    except (OSError, subprocess.CalledProcessError):
        return {}
    names = result.stdout.splitlines()
    if len(names) != len(usrs):
        return {}
    return {usr: name.strip() for usr, name in zip(usrs, names) if not name.startswith("$s")}


def load(directory, module):
    if module:
        paths = [os.path.join(directory, f"{module}.symbols.json")]
        paths += glob.glob(os.path.join(glob.escape(directory), f"{glob.escape(module)}@*.symbols.json"))
    else:
        paths = glob.glob(os.path.join(glob.escape(directory), "*.symbols.json"))
    graphs = []
    for path in sorted(paths):
        if not os.path.isfile(path):
            sys.exit(f"api-record: no symbol graph {path}")
        with open(path, encoding="utf-8") as file:
            graphs.append(json.load(file))
    if not graphs:
        sys.exit(f"api-record: no symbol graphs in {directory}")
    modules = {graph["module"]["name"] for graph in graphs}
    if len(modules) != 1:
        sys.exit(f"api-record: {directory} holds the graphs of {', '.join(sorted(modules))}; name one with --module")
    return modules.pop(), graphs


def hidden(symbol):
    return (
        "::SYNTHESIZED::" in symbol["identifier"]["precise"]
        or symbol.get("spi")
        or symbol.get("accessLevel") not in ("public", "open")
        or any(component.startswith("_") for component in symbol["pathComponents"])
    )


def record(directory, module=None):
    module, graphs = load(directory, module)

    symbols = {}  # USR -> symbol, of every graph: a protocol of the module is named in its extension graphs too
    for graph in graphs:
        for symbol in graph["symbols"]:
            symbols[symbol["identifier"]["precise"]] = symbol
    relationships = [r for graph in graphs for r in graph["relationships"]]

    # The names of other modules' types: from the fallbacks the graphs give, from
    # the members the module adds to them, and from the demangler for the rest.
    names = {}
    for relationship in relationships:
        if "targetFallback" in relationship and relationship["target"] not in symbols:
            names[relationship["target"]] = qualified(relationship["targetFallback"])
    for relationship in relationships:
        source = symbols.get(relationship["source"])
        if relationship["kind"] == "memberOf" and source and relationship["target"] not in symbols:
            extended = source.get("swiftExtension", {}).get("extendedModule")
            if extended and relationship["target"] not in names:
                names[relationship["target"]] = ".".join([module_name(extended)] + source["pathComponents"][:-1])
    unnamed = {
        usr for r in relationships if r["kind"] in ("conformsTo", "inheritsFrom")
        for usr in (r["source"], r["target"]) if usr not in symbols and usr not in names
    }
    names.update(demangle(unnamed))

    def components(symbol):
        extended = module_name(symbol.get("swiftExtension", {}).get("extendedModule", module))
        return ([] if extended == module else [extended]) + symbol["pathComponents"]

    def path(symbol):
        return ".".join(components(symbol))

    def name(usr):
        if usr in symbols:
            return path(symbols[usr])
        return names.get(usr, usr)

    def public(usr):
        return usr not in symbols or not hidden(symbols[usr])

    # The generic constraints a type declares (and the types it is nested in), which
    # the extensions its members and conformances are declared in repeat.
    parents = {r["source"]: r["target"] for r in relationships if r["kind"] == "memberOf"}

    def declared_constraints(usr):
        constraints = set()
        seen = set()
        while usr is not None and usr not in seen:
            seen.add(usr)
            for constraint in symbols.get(usr, {}).get("swiftGenerics", {}).get("constraints", []):
                constraints.add(constraint_text(constraint))
            usr = parents.get(usr)
        return constraints

    def extra_constraints(constraints, usr):
        declared = declared_constraints(usr)
        return [text for text in map(constraint_text, constraints) if text not in declared]

    requirements = {r["source"] for r in relationships if r["kind"] in ("requirementOf", "optionalRequirementOf")}

    lines = []  # (path components, order, text): a type's declaration, then its conformances, then its members
    for usr, symbol in symbols.items():
        if hidden(symbol):
            continue
        notes = []
        if usr in requirements:
            notes.append("requirement")
        extra = extra_constraints(symbol.get("swiftExtension", {}).get("constraints", []), parents.get(usr))
        if extra:
            notes.append("where " + ", ".join(extra))
        for entry in sorted(symbol.get("availability", []), key=lambda e: e.get("domain", "*")):
            notes.append(availability_text(entry))
        # The declaration of an open class or member says `class` or `func`; `open` is only in its access level.
        opened = "open " if symbol.get("accessLevel") == "open" else ""
        text = f"{path(symbol)}: {opened}{declaration(symbol)}" + "".join(f" [{note}]" for note in notes)
        lines.append((components(symbol), 0, text))

    for relationship in relationships:
        if relationship["kind"] not in ("conformsTo", "inheritsFrom"):
            continue
        source, target = relationship["source"], relationship["target"]
        if "::SYNTHESIZED::" in source or not public(source) or not public(target):
            continue
        target_name = name(target)
        if target_name.split(".")[-1].startswith("_"):
            continue
        if target_name in IMPLIED:
            continue
        constraints = extra_constraints(relationship.get("swiftConstraints", []), source)
        text = f"{name(source)}: {target_name}"
        if constraints:
            text += " [where " + ", ".join(constraints) + "]"
        lines.append((components(symbols[source]) if source in symbols else name(source).split("."), 1, text))

    # A conformance declared twice (in the type's declaration and again by an
    # extension that adds a protocol refining it) is one conformance.
    lines = sorted({(tuple(key), order, text) for key, order, text in lines})
    header = [
        f"# The public API of {module}: a line per public symbol and per conformance of a public type.",
        "# Made by Scripts/api-record.py from the module's symbol graphs; Scripts/check-api.sh checks it and --update rewrites it.",
    ]
    return "\n".join(header + [text for _, _, text in lines]) + "\n"


def main():
    parser = argparse.ArgumentParser(description="Prints the record of a module's public API from its symbol graphs.")
    parser.add_argument("directory", help="a directory of <Module>.symbols.json and <Module>@<Other>.symbols.json files")
    parser.add_argument("--module", help="the module whose graphs to read, when the directory holds others too")
    arguments = parser.parse_args()
    sys.stdout.write(record(arguments.directory, arguments.module))


if __name__ == "__main__":
    main()
