#!/usr/bin/env python3
"""The Swift code of a guide, made runnable, and what it prints checked against
what the guide shows. Scripts/check-guides.sh uses it for the root's guides,
and .ci/run for the integrations' guides, whose code each integration package
builds with its GuideCode plugin (Tools/GuideCode), rewritten the same way;
Guides/Development.md gives the convention ("How a guide shows output").

    guide-output.py generate GUIDE.md OUTPUT_FOLDER   # main.swift + GuidePrint.swift, for the root's guides
    guide-output.py run GUIDE.md -- PROGRAM [ARGUMENTS...]   # runs PROGRAM in a scratch folder and checks
    guide-output.py show GUIDE.md -- PROGRAM [ARGUMENTS...]  # the same, listing what each line printed

The generated code calls `guidePrint(#line, ...)` where the guide calls
`print(...)`, under `#sourceLocation` directives that give the guide's own
file and lines, so each printed line is known by the guide line that printed
it (and compiler errors point into the guide). The records go to the file
named by STOWAGE_GUIDE_PRINTS; the program's own standard output must stay
empty, so a print that escaped the rewriting fails the check.
"""
import os, re, subprocess, sys, tempfile

PRINT_CALL = re.compile(r"(?<![.\w])print\(")
BLOCK_START = re.compile(r"^```swift[ \t]*$")
NOTE = " — "      # what follows it in a trailing output comment is a note for the reader
WILDCARD = "…"    # any text within one line
PRINTS = "Prints: "   # a comment starting with it shows output of the code on or above its line

# Swift that records a print: the guide line, then the text as print would write it.
# Tools/GuideCode/Sources/GuideCodeExtractor/main.swift writes the same function.
GUIDE_PRINT = """\
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `print` as the guide calls it, recording which guide line printed what in
/// the file that `STOWAGE_GUIDE_PRINTS` names (Scripts/guide-output.py checks
/// it); without that variable, a plain print.
func guidePrint(_ line: Int, _ items: Any..., separator: String = " ", terminator: String = "\\n") {
    let text = items.map { String(describing: $0) }.joined(separator: separator) + terminator
    guard let path = getenv("STOWAGE_GUIDE_PRINTS") else { return Swift.print(text, terminator: "") }
    let record = Array("\\(line) \\(text.utf8.count)\\n\\(text)".utf8)
    // One write per record, appended: prints from other threads never interleave.
    let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT, 0o644)
    guard descriptor >= 0 else { fatalError("can not open \\(String(cString: path))") }
    _ = record.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    close(descriptor)
}
"""


def blocks(text):
    """Each ```swift block as (number of its first line, its lines), manifests left out."""
    found, current, start = [], None, 0
    for number, line in enumerate(text.split("\n"), 1):
        if current is None and BLOCK_START.match(line):
            current, start = [], number + 1
        elif current is not None and line.startswith("```"):
            if not "\n".join(current).lstrip().startswith("// swift-tools-version"):
                found.append((start, current))
            current = None
        elif current is not None:
            current.append(line)
    return found


def rewrite(line):
    """A code line with its print calls made guidePrint calls that pass their line."""
    line = re.sub(r"(?<![.\w])print\(\s*\)", "guidePrint(#line)", line)
    return PRINT_CALL.sub("guidePrint(#line, ", line)


def comment_start(line):
    """Where the line's // comment starts, outside string literals; None without one."""
    index, quoted = 0, False
    while index < len(line):
        character = line[index]
        if quoted and character == "\\":
            index += 2
            continue
        if character == '"':
            quoted = not quoted
        elif not quoted and line.startswith("//", index):
            return index
        index += 1
    return None


def expectations(path):
    """What the guide shows as printed, in order: (kind, guide line, expected lines)."""
    text = open(path, encoding="utf-8").read()
    document = text.split("\n")
    found = []
    for start, lines in blocks(text):
        index = 0
        while index < len(lines):
            line, number = lines[index], start + index
            at = comment_start(line)
            index += 1
            if at is None:
                continue
            comment = line[at + 2:]
            if PRINT_CALL.search(line[:at]):
                # The print's own output, on its line.
                if not comment.startswith(" "):
                    sys.exit(f"{path}:{number}: a print's output comment starts with '// '")
                found.append(("line", number, [comment[1:].split(NOTE, 1)[0]]))
            elif comment.strip().startswith(PRINTS.strip()) and comment.strip() != PRINTS.strip():
                # One line that the code on this line (or just above it) printed.
                found.append(("block", number, [comment.lstrip()[len(PRINTS):].split(NOTE, 1)[0]]))
            elif comment.strip() == PRINTS.strip():
                # Lines that the code above printed, one per comment line.
                shown = []
                while index < len(lines) and lines[index].strip().startswith("//"):
                    body = lines[index][at:]
                    if not body.startswith("//"):
                        sys.exit(f"{path}:{start + index}: an output line must start where its '// {PRINTS.strip()}' does")
                    body = body[2:]
                    shown.append(body[1:] if body.startswith(" ") else body)
                    index += 1
                found.append(("block", number, shown))
        # A swift block that ends with a print with no comment: the fenced block
        # right after it (blank lines only between) is what it printed.
        last = max((i for i, line in enumerate(lines) if line.strip()), default=None)
        if last is not None and PRINT_CALL.search(lines[last]) and comment_start(lines[last]) is None:
            after = start + len(lines)   # index of the line after the closing fence
            while after < len(document) and not document[after].strip():
                after += 1
            if after < len(document) and document[after].startswith("```") and not BLOCK_START.match(document[after]):
                end = after + 1
                while end < len(document) and not document[end].startswith("```"):
                    end += 1
                found.append(("block", after + 1, document[after + 1:end]))
    return found


def print_lines(path):
    """The guide lines that call print."""
    return [start + index for start, lines in blocks(open(path, encoding="utf-8").read())
            for index, line in enumerate(lines) if PRINT_CALL.search(line[:comment_start(line) or len(line)])]


def generate(path, folder):
    path = os.path.abspath(path)
    code = []
    found = blocks(open(path, encoding="utf-8").read())
    if not found:
        return
    for start, lines in found:
        code.append(f'#sourceLocation(file: "{path}", line: {start})')
        code.extend(rewrite(line) for line in lines)
    code.append("#sourceLocation()")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "main.swift"), "w", encoding="utf-8") as file:
        file.write("\n".join(code) + "\n")
    with open(os.path.join(folder, "GuidePrint.swift"), "w", encoding="utf-8") as file:
        file.write(GUIDE_PRINT)


def records(path):
    """What the program printed: (guide line, printed lines), in order."""
    data, found, offset = open(path, "rb").read() if os.path.exists(path) else b"", [], 0
    while offset < len(data):
        end = data.index(b"\n", offset)
        line, size = map(int, data[offset:end].split())
        text = data[end + 1:end + 1 + size].decode("utf-8")
        offset = end + 1 + size
        found.append((line, text.rstrip("\n").split("\n")))
    return found


def matches(expected, printed):
    pattern = ".*".join(re.escape(part) for part in expected.split(WILDCARD))
    return re.fullmatch(pattern, printed, flags=re.S) is not None


def compare(name, shown, printed):
    """The first difference between what the guide shows and what was printed; None when none."""
    position = 0
    for kind, line, lines in shown:
        if kind == "line":
            if position == len(printed):
                return f"{name}:{line}: shows {lines[0]!r}, but nothing more was printed"
            printed_line, text = printed[position]
            if printed_line != line:
                return (f"{name}:{line}: shows {lines[0]!r}, but line {printed_line} printed next:\n"
                        + "\n".join("    " + t for t in text))
            if len(text) != 1 or not matches(lines[0], text[0]):
                return f"{name}:{line}: shows\n    {lines[0]}\n  printed\n" + "\n".join("    " + t for t in text)
            position += 1
        else:
            got, origins = [], []
            while len(got) < len(lines) and position < len(printed):
                got.extend(printed[position][1])
                origins.append(printed[position][0])
                position += 1
            if len(got) != len(lines) or not all(map(matches, lines, got)):
                return (f"{name}:{line}: shows\n" + "\n".join("    " + t for t in lines)
                        + f"\n  printed (by lines {', '.join(map(str, origins)) or 'none'})\n"
                        + "\n".join("    " + t for t in got))
    if position < len(printed):
        printed_line, text = printed[position]
        return (f"{name}:{printed_line}: printed what the guide does not show"
                f" ({len(printed) - position} prints in all):\n" + "\n".join("    " + t for t in text))
    return None


def run(path, command, show):
    """Runs the guide's program in a scratch folder of its own and checks what it printed."""
    name = os.path.relpath(path)
    expected = expectations(path)
    with tempfile.TemporaryDirectory(prefix="guide-") as scratch:
        home, temporary = os.path.join(scratch, "home"), os.path.join(scratch, "tmp")
        os.makedirs(home)
        os.makedirs(temporary)
        output = os.path.join(scratch, "prints")
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": home,
            "TMPDIR": temporary,
            "LANG": "C.UTF-8",
            "TZ": "UTC",
            "STOWAGE_GUIDE_PRINTS": output,
        }
        # What a guide says it assumes of the environment.
        environment.update(ASSUMED.get(os.path.basename(path), {}))
        for variable in PASSED:
            if variable in os.environ:
                environment[variable] = os.environ[variable]
        try:
            run = subprocess.run(command, cwd=scratch, env=environment, capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired as timeout:
            run = subprocess.CompletedProcess(command, "timeout", timeout.stdout or "", f"still running after {timeout.timeout:.0f} s")
        printed = records(output)
    if show:
        for line, text in printed:
            print(f"{line}: " + "\n    ".join(text))
    problem = None
    if run.returncode != 0:
        problem = f"{name}: the code exited with status {run.returncode}:\n{run.stderr.strip()}"
    elif run.stdout:
        problem = f"{name}: printed past the guide's print calls:\n{run.stdout.rstrip()}"
    else:
        problem = compare(name, expected, printed)
    calls = len(print_lines(path))
    shown = sum(1 for kind, _, _ in expected if kind == "line")
    blocks_shown = len(expected) - shown
    if problem:
        print(problem)
        if run.stderr.strip() and run.returncode == 0:
            print(f"  (standard error: {run.stderr.strip()[:2000]})")
        return False
    print(f"{name}: {len(printed)} prints as shown ({calls} print calls; {shown} outputs shown on their line, {blocks_shown} in blocks)")
    return True


# Environment variables a guide says it assumes (the rest of the environment is
# HOME and TMPDIR in the scratch folder, PATH, LANG=C.UTF-8, TZ=UTC).
ASSUMED = {
    # SHELL is read from the process environment; MYAPP_PATH is what its Options example reads.
    "EnvironmentStore.md": {"SHELL": "/bin/bash", "MYAPP_PATH": "/usr/bin:/bin"},
}
# Passed through when set: where the PostgreSQL guides find their server (Integrations/Postgres/Scripts/postgres.sh).
PASSED = ["PGHOST", "PGPORT", "PGUSER", "PGPASSWORD", "PGDATABASE"]


if __name__ == "__main__":
    arguments = sys.argv[1:]
    if len(arguments) == 3 and arguments[0] == "generate":
        generate(arguments[1], arguments[2])
    elif len(arguments) >= 4 and arguments[0] in ("run", "show") and arguments[2] == "--":
        sys.exit(0 if run(arguments[1], arguments[3:], arguments[0] == "show") else 1)
    else:
        sys.exit(__doc__)
