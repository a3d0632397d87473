#!/usr/bin/env python3
"""File and function sizes of the crate's sources, as markdown tables.

    python3 tools/sizes.py            every file of src/ and every function over 60 lines
    python3 tools/sizes.py --check    exits 1 if a file of src/ is over 700 lines or a function over
                                      80 (test modules not counted), except those in EXCEPTIONS,
                                      or a file of the tests, fuzz targets, benchmarks or examples
                                      over 1,000 lines or a function there over 150

A file is counted whole, its unit tests included (they are what a reader scrolls through too). A
function is counted from its `fn` line to the line of its closing brace, attributes and doc comments
not included; functions inside `#[cfg(test)]` items are not held to the limit.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILE_LIMIT = 700
FUNCTION_LIMIT = 80
# The tests, the fuzz targets, the benchmarks and the examples: files and functions a newcomer can
# still find their way in.
TEST_ROOTS = ["tests", "fuzz/fuzz_targets", "fuzz/src", "benches", "examples"]
TEST_FILE_LIMIT = 1000
TEST_FUNCTION_LIMIT = 150
LISTED_FROM = 60

# Functions left longer, each with its reason: one `match` over the variable table (its length is
# the table's, and a split would only scatter it), or a hot loop that runs slower split.
EXCEPTIONS = {
    "src/model/access.rs::value": "one match over the variable table, an arm per variable",
    "src/step/dynamic.rs::affine_stretch": "the closed form's sampling loop with its event location "
    "in one body: split into named parts, a step inside a contact with f_next read measured 8 % "
    "slower (176 against 163 bare evaluations, paired, four runs each)",
}

FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(unsafe\s+)?(extern\s+\"C\"\s+)?fn\s+(\w+)")


def code_of(line):
    """The line without its comment and string contents, for brace counting."""
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])'", "''", line)
    return line.split("//", 1)[0]


def strip_tests(lines):
    """The lines with every `#[cfg(test)]` item removed (replaced by nothing)."""
    out, skipping, depth, started = [], False, 0, False
    for line in lines:
        if not skipping and line.strip() == "#[cfg(test)]":
            skipping, depth, started = True, 0, False
            continue
        if skipping:
            code = code_of(line)
            depth += code.count("{") - code.count("}")
            started = started or "{" in code
            if started and depth <= 0:
                skipping = False
            elif not started and code.rstrip().endswith(";"):
                skipping = False
            continue
        out.append(line)
    return out


def functions(lines):
    """(name, first line, length) of every function with a body."""
    found = []
    for i, line in enumerate(lines):
        match = FN.match(line)
        if not match:
            continue
        depth, started = 0, False
        for j in range(i, len(lines)):
            code = code_of(lines[j])
            if not started and ";" in code and "{" not in code:
                break
            depth += code.count("{") - code.count("}")
            started = started or "{" in code
            if started and depth <= 0:
                found.append((match.group(6), i + 1, j - i + 1))
                break
    return found


def measure():
    files, funcs = [], []
    for path in sorted((ROOT / "src").rglob("*.rs")):
        rel = path.relative_to(ROOT).as_posix()
        whole = path.read_text().splitlines()
        lines = strip_tests(whole)
        files.append((rel, len(whole)))
        funcs += [(rel, name, first, length) for name, first, length in functions(lines)]
    return files, funcs


def measure_tests():
    """(file, lines) and (file, function, first line, length) of the tests' Rust sources."""
    files, funcs = [], []
    for root in TEST_ROOTS:
        for path in sorted((ROOT / root).rglob("*.rs")):
            rel = path.relative_to(ROOT).as_posix()
            lines = path.read_text().splitlines()
            files.append((rel, len(lines)))
            funcs += [(rel, name, first, length) for name, first, length in functions(lines)]
    return files, funcs


def tests_over():
    files, funcs = measure_tests()
    over = [f"{f}: {n} lines" for f, n in files if n > TEST_FILE_LIMIT]
    over += [f"{f}: fn {name} {n} lines" for f, name, _, n in funcs if n > TEST_FUNCTION_LIMIT]
    return over


def main():
    files, funcs = measure()
    if "--check" in sys.argv:
        over = [f"{f}: {n} lines" for f, n in files if n > FILE_LIMIT and f not in EXCEPTIONS]
        over += [
            f"{f}: fn {name} {n} lines"
            for f, name, _, n in funcs
            if n > FUNCTION_LIMIT and f"{f}::{name}" not in EXCEPTIONS
        ]
        over += tests_over()
        print("\n".join(over) or f"no file over {FILE_LIMIT} lines, no function over {FUNCTION_LIMIT}; "
              f"in the tests none over {TEST_FILE_LIMIT} and {TEST_FUNCTION_LIMIT}")
        return 1 if over else 0
    print("| file | lines |\n| --- | --- |")
    for f, n in sorted(files, key=lambda x: -x[1]):
        print(f"| `{f}` | {n}{' (over)' if n > FILE_LIMIT else ''} |")
    print(f"\n{len(files)} files, {sum(n for _, n in files)} lines\n")
    long = sorted((x for x in funcs if x[3] > LISTED_FROM), key=lambda x: -x[3])
    print(f"| function over {LISTED_FROM} lines | lines |\n| --- | --- |")
    for f, name, first, n in long:
        note = " (exception)" if f"{f}::{name}" in EXCEPTIONS else ""
        print(f"| `{f}:{first}` `{name}` | {n}{note} |")
    over = sum(1 for x in funcs if x[3] > FUNCTION_LIMIT)
    print(f"\n{len(funcs)} functions, {over} over {FUNCTION_LIMIT} lines, {len(long)} over {LISTED_FROM}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
