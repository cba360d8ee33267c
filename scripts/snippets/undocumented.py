#!/usr/bin/env python3
"""Lists the public API of the library products that has no `///` comment: public and open declarations (an
extension itself excepted: its members are checked), the cases of public enums and the requirements of public
protocols. A member that implements a protocol's requirement (a `RowSource`'s `width`, `description`, `==`) shows
the requirement's documentation in DocC and is not listed; nor are names starting with `_` (not API). Prints
FILE:LINE: DECLARATION for each and exits 1 when there is one. scripts/check-snippets runs it.

    undocumented.py ROOT LIBRARY...
"""
import glob, os, re, sys

ROOT, LIBRARIES = sys.argv[1], sys.argv[2:]
DECLARATION = re.compile(
    r"^\s*(@[\w.]+(\([^)]*\))?\s+)*((public|open|final|static|class|nonisolated|override|mutating|indirect|"
    r"convenience|required|@discardableResult)\s+)*(public|open)\s+.*\b(func|var|let|init|subscript|struct|class|"
    r"enum|protocol|actor|typealias|case|associatedtype|macro)\b")
REQUIREMENT = re.compile(r"^\s*(@[\w.]+(\([^)]*\))?\s+)*((static|mutating|nonisolated)\s+)*"
                         r"(func|var|init|subscript|associatedtype)\b")
CASE = re.compile(r"^\s*(indirect\s+)?case\s+\w")


def documented(lines, index):
    """Whether the declaration at `index` has a `///` (or `/** */`) comment above it, attributes between."""
    k = index - 1
    while k >= 0 and (lines[k].strip().startswith(("@", "#if", "#endif"))
                      or lines[k].strip().startswith("//") and not lines[k].strip().startswith("///")):
        k -= 1
    return k >= 0 and (lines[k].strip().startswith("///") or lines[k].strip().endswith("*/"))


def code(line):
    """The line without string literals and its `//` comment, for counting braces."""
    return re.sub(r'"([^"\\]|\\.)*"', '""', line).split("//")[0]


# Requirements of the standard library's protocols the libraries conform to, then those of their own protocols.
WITNESSES = {"description", "debugDescription", "==", "<", "hash", "rawValue", "provideScope", "makeIterator", "next",
             "encode", "callAsFunction", "init(rawValue:)"}
NAME = re.compile(r"\b(func|var|let|case|associatedtype|subscript)\s+(`?[\w]+`?|[^\w\s(]+)")


def name_of(line):
    m = NAME.search(line)
    if re.search(r"\binit\(rawValue:", line):
        return "init(rawValue:)"
    return m.group(2).strip("`") if m else ("init" if re.search(r"\binit\b", line) else "")


def sources():
    for library in LIBRARIES:
        yield from sorted(glob.glob(os.path.join(ROOT, "Sources", library, "**", "*.swift"), recursive=True))


for path in sources():
    depth, protocols = 0, []
    for line in open(path, encoding="utf-8").read().split("\n"):
        if protocols and protocols[-1] == depth and REQUIREMENT.match(line) and name_of(line) != "init":
            WITNESSES.add(name_of(line))
        if re.search(r"\bpublic\b.*\bprotocol\s+\w", line) and "{" in code(line):
            protocols.append(depth + 1)
        depth += code(line).count("{") - code(line).count("}")
        while protocols and protocols[-1] > depth:
            protocols.pop()

missing = []
for library in LIBRARIES:
    for path in sorted(glob.glob(os.path.join(ROOT, "Sources", library, "**", "*.swift"), recursive=True)):
        lines = open(path, encoding="utf-8").read().split("\n")
        depth, containers = 0, []  # (kind, depth inside its body) of the public enums and protocols we are in
        for i, line in enumerate(lines):
            stripped = line.strip()
            inside = containers[-1] if containers and containers[-1][1] == depth else None
            is_decl = bool(DECLARATION.match(line)) and not re.match(r"^\s*(public|open)\s+(extension|import)\b",
                                                                    stripped)
            requirement = bool(inside and inside[0] == "protocol" and REQUIREMENT.match(line))
            if is_decl and not requirement and (name_of(line) in WITNESSES or name_of(line).startswith("_")):
                is_decl = False
            if inside and inside[0] == "enum" and CASE.match(line):
                is_decl = True
            if requirement:
                is_decl = True
            if is_decl and not documented(lines, i):
                missing.append(f"{os.path.relpath(path, ROOT)}:{i + 1}: {stripped}")
            opened = code(line).count("{") - code(line).count("}")
            kind = re.search(r"\bpublic\b.*\b(enum|protocol)\s+\w", line)
            if kind and "{" in code(line):
                containers.append((kind.group(1), depth + 1))
            depth += opened
            while containers and containers[-1][1] > depth:
                containers.pop()
for entry in missing:
    print(entry)
if missing:
    print(f"undocumented.py: {len(missing)} public declarations without a /// comment", file=sys.stderr)
    sys.exit(1)
