#!/usr/bin/env python3
"""Extracts every Swift code block of the README, the DocC articles and the public `///` doc comments into one Swift
module per document (per library for doc comments), as a user would write them: each block's type declarations,
extensions and imports at file scope, its statements (and local functions) in a `@MainActor func ... async throws`,
so a block may use `await`, `try` and `@MainActor` UI objects. `#sourceLocation` maps every line back to the file and
line it came from, so the compiler's diagnostics name the document, not the generated file.

A block the compiler must not see is marked in its fence: ```swift fragment (keep these few, each with a reason in
the text around it). What a document assumes of the user's app (their `ChartView`, `fetch`, `draw`...) is declared
in scripts/snippets/context/<group>.swift, the group's hidden prelude.

    extract.py ROOT OUT      writes OUT/<group>/*.swift and prints one line per group: NAME IMPORTS...
"""
import os, re, sys, glob

ROOT, OUT = sys.argv[1:3]

# Articles whose examples are run, as written, by a test target: their blocks (declarations only, a `@Test` among
# them) are written to the test file, with #sourceLocation to the article, so a failing expectation names the
# article's line. scripts/check-snippets fails when a committed file is not what the article gives
# (`scripts/check-snippets --update` rewrites them).
ARTICLES_AS_TESTS = {
    "Sources/Lanes/Lanes.docc/TestingWithLanes.md": "Tests/LanesTests/Articles/TestingWithLanes.swift",
    "Sources/LanesLists/LanesLists.docc/AListThatFollowsTheUser.md":
        "Tests/LanesListsTests/Articles/AListThatFollowsTheUser.swift",
}

# Documents and the modules a user of each would import.
LIBRARY_DEPS = {
    "Lanes": ["Lanes"],
    "LanesTesting": ["Lanes", "LanesTesting", "Testing"],
    "LanesLists": ["Lanes", "LanesLists"],
    "LanesImages": ["Lanes", "LanesLists", "LanesImages"],
    "StocksKit": ["StocksKit"],
    "LanesAppSupport": ["Lanes", "LanesAppSupport"],
    # A GTK app's code: GTK through the CGtk4 product, the image pipeline it shows photos with.
    "LanesGLib": ["Foundation", "Lanes", "LanesImages", "LanesGLib", "CGtk4"],
}
DECL = re.compile(
    r"^(@\w+(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?\s+)*((public|private|fileprivate|internal|package|final|open|nonisolated|indirect)\s+)*"
    r"(struct|class|enum|protocol|extension|actor|typealias|import)\b")


def blocks_in_markdown(path):
    """(first line number, info string, lines) of every fenced block."""
    lines = open(path, encoding="utf-8").read().split("\n")
    return fenced(lines, 1)


def fenced(lines, first_number, numbers=None):
    out, i = [], 0
    while i < len(lines):
        m = re.match(r"^(\s*)```\s*(\S*)\s*(.*)$", lines[i])
        if m:
            indent, lang, rest = m.group(1), m.group(2), m.group(3)
            body, j = [], i + 1
            while j < len(lines) and not re.match(r"^\s*```\s*$", lines[j]):
                body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j].lstrip())
                j += 1
            start = (numbers[i + 1] if numbers and i + 1 < len(numbers) else first_number + i + 1)
            out.append((start, lang, rest.split(), body, numbers[i + 1:j] if numbers else None))
            i = j + 1
        else:
            i += 1
    return out


def is_public(src, k):
    """A public or open declaration, a requirement of a public protocol, a member of a public extension, or a case
    of a public enum."""
    if re.search(r"\b(public|open)\b", src[k]):
        return True
    indent = len(src[k]) - len(src[k].lstrip())
    for line in reversed(src[:k]):
        stripped = line.strip()
        if not stripped or stripped.startswith("//") or len(line) - len(line.lstrip()) >= indent:
            continue
        container = re.search(r"\bpublic\b.*\b(protocol|extension|enum)\b", line)
        return bool(container) and (container.group(1) != "enum" or src[k].strip().startswith("case "))
    return False


def blocks_in_doc_comments(path):
    """Blocks of `///` comments that document public API (see is_public)."""
    src = open(path, encoding="utf-8").read().split("\n")
    out, i = [], 0
    while i < len(src):
        if src[i].lstrip().startswith("///"):
            j = i
            comment, numbers = [], []
            while j < len(src) and src[j].lstrip().startswith("///"):
                text = src[j].lstrip()[3:]
                comment.append(text[1:] if text.startswith(" ") else text)
                numbers.append(j + 1)
                j += 1
            k = j
            while k < len(src) and (src[k].strip().startswith("@") and not re.search(r"\b(public|open)\b", src[k])
                                    or src[k].strip() == "" or src[k].strip().startswith("//")):
                k += 1
            if k < len(src) and is_public(src, k) and "```" in "\n".join(comment):
                out.extend(fenced(comment, 0, numbers))
            i = j
        else:
            i += 1
    return out


FUNC = re.compile(
    r"^(@\w+(\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?\s+)*((public|private|fileprivate|internal|package|nonisolated|static)\s+)*func\b")


def split(body):
    """Type declarations, extensions and imports at depth 0 go to file scope, and so do functions when the block
    has no statements of its own (a block of declarations); everything else is the wrapper function's body."""
    chunks, depth, pending = [], 0, []  # pending: attribute-only lines (@MainActor) waiting for their declaration
    for n, line in body:
        stripped = line.strip()
        if depth == 0:
            if re.match(r"^@\w+(\(.*\))?$", stripped):
                pending.append((n, line)); continue
            probe = " ".join(l.strip() for _, l in pending) + " " + stripped
            kind = "decl" if DECL.match(probe.strip()) else "func" if FUNC.match(probe.strip()) else \
                "blank" if stripped == "" or stripped.startswith("//") else "stmt"
            chunks.append((kind, pending + [(n, line)])); pending = []
        else:
            chunks[-1][1].append((n, line))
        code = re.sub(r'"([^"\\]|\\.)*"', '""', line).split("//")[0]
        depth = max(0, depth + code.count("{") - code.count("}"))
    if pending:
        chunks.append(("stmt", pending))
    hoist = {"decl"} if any(kind == "stmt" for kind, _ in chunks) else {"decl", "func"}
    hoisted = [l for kind, lines in chunks if kind in hoist for l in lines]
    stmts = [l for kind, lines in chunks if kind not in hoist for l in lines]
    return hoisted, stmts


SHOWN = re.compile(r"^(\s*)(?!(?:(?:let|var|if|guard|for|while|return|switch|case|do|func|defer|throw|print)\b|_ =|#|@|\}|\{))"
                   r"([^=/]*?(==[^=/]*?)*)(\s*//.*)$")


def shown_values(stmts):
    """A bare expression with a comment after it (`Sector.known(symbol: "AAPL")   // .technology`) shows a value,
    as in a playground: it is compiled as `shownValue(expression)`, which is what its unused result means (a Void
    call with a comment after it too)."""
    out, depth = [], 0
    for n, line in stmts:
        # Matched with string literals blanked (same length), so a `/` or `=` inside one is not a comment.
        masked = re.sub(r'"([^"\\]|\\.)*"', lambda q: '"' + "x" * (len(q.group(0)) - 2) + '"', line)
        m = SHOWN.match(masked) if depth == 0 else None
        if m and m.group(2).strip() and not m.group(2).rstrip().endswith(("{", "(", ",", "in")) \
                and re.search(r"[\w)\]]$", m.group(2).rstrip()):
            expr = line[m.start(2):m.end(2)].rstrip()
            prefix = re.match(r"^((try\??\s+)?(await\s+)?)", expr).group(1)
            line = f"{m.group(1)}{prefix}shownValue({expr[len(prefix):]}){line[m.start(4):]}"
        out.append((n, line))
        code = re.sub(r'"([^"\\]|\\.)*"', '""', line).split("//")[0]
        depth = max(0, depth + code.count("{") - code.count("}"))
    return out


def emit(chunks, path):
    out, last = [], None
    for n, line in chunks:
        if last is None or n != last + 1:
            out.append(f'#sourceLocation(file: "{path}", line: {n})')
        out.append(line)
        last = n
    if chunks:
        out.append("#sourceLocation()")
    return out


def import_lines(imports):
    """`import M`; a name ending in `?` only where it exists (FoundationNetworking: URLSession on Linux)."""
    return [f"#if canImport({m[:-1]})\nimport {m[:-1]}\n#endif" if m.endswith("?") else f"import {m}" for m in imports]


def write_group(name, imports, items):
    folder = os.path.join(OUT, name)
    os.makedirs(folder, exist_ok=True)
    context = os.path.join(ROOT, "scripts", "snippets", "context", name + ".swift")
    count = 0
    for index, (path, start, body, numbers, flags) in enumerate(items):
        numbered = list(zip(numbers or range(start, start + len(body)), body))
        hoisted, stmts = split(numbered)
        names = [m.group(2) for _, l in stmts if (m := re.match(r"^(let|var)\s+(\w+)\b", l))]
        lines = import_lines(imports) + emit(hoisted, path)
        # App code, where the UI is @MainActor; a block fenced ```swift nonisolated is test code (swift-testing's test
        # functions are nonisolated).
        isolation = "" if "nonisolated" in flags else "@MainActor "
        # async only where the block awaits: a block of top-level code (a main.swift) is synchronous.
        effects = "async throws" if any(re.search(r"\bawait\b", l) for _, l in stmts) else "throws"
        lines.append(f"{isolation}func snippet{index}() {effects} {{")
        lines += emit(shown_values(stmts), path)
        # A top-level constant would not be "never used" in a user's file; here one used nowhere else is touched.
        text = "\n".join(re.sub(r'"([^"\\]|\\.)*"', '""', l).split("//")[0] for _, l in stmts)
        lines += [f"    _ = {n}" for n in dict.fromkeys(names) if len(re.findall(rf"(?<![.\w]){n}\b", text)) == 1]
        if any(re.match(r"^defer\b", l) for _, l in stmts):
            lines.append("    shownValue(())   // a block's `defer` runs when the block's scope ends, as at top level")
        lines.append("}")
        lines.append("private func shownValue<Value>(_ value: Value) {}")
        open(os.path.join(folder, f"block{index}.swift"), "w").write("\n".join(lines) + "\n")
        count += 1
    if os.path.exists(context):
        ctx = open(context).read()
        open(os.path.join(folder, "context.swift"), "w").write(
            "\n".join(import_lines(imports)) + "\n" + f'#sourceLocation(file: "{os.path.relpath(context, ROOT)}", line: 1)\n' + ctx + "\n#sourceLocation()\n")
    print(name, count)


def write_article_test(rel, items, imports):
    """The article's blocks as one test source: imports first, then every block's declarations in order."""
    heads, body = [], []
    for path, start, block, numbers, _ in items:
        numbered = list(zip(numbers or range(start, start + len(block)), block))
        hoisted, stmts = split(numbered)
        if any(l.strip() and not l.strip().startswith("//") for _, l in stmts):
            sys.exit(f"{path}:{start}: a block of an article run as a test must hold declarations only")
        code = [(n, l) for n, l in hoisted if not l.startswith("import ")]
        heads += [l for _, l in hoisted if l.startswith("import ")]
        body += emit(code, path)
    target = os.path.join(OUT, "article-tests", ARTICLES_AS_TESTS[rel])
    os.makedirs(os.path.dirname(target), exist_ok=True)
    text = (f"// Generated by scripts/check-snippets --update from {rel}:\n"
            "// the article's code as written, run by this test target. Edit the article, not this file.\n\n"
            + "\n".join(dict.fromkeys(import_lines(imports) + heads)) + "\n\n" + "\n".join(body) + "\n")
    open(target, "w").write(text)


fragments = 0
def keep(lang, flags):
    global fragments
    if lang != "swift":
        return False
    if "fragment" in flags:
        fragments += 1
        return False
    return True


# Markdown: the README and every DocC article, one group each.
docs = [("README", os.path.join(ROOT, "README.md"), ["Lanes"])]
for catalog in sorted(glob.glob(os.path.join(ROOT, "Sources", "*", "*.docc"))):
    library = os.path.basename(os.path.dirname(catalog))
    for article in sorted(glob.glob(os.path.join(catalog, "*.md"))):
        group = library + "_" + os.path.splitext(os.path.basename(article))[0]
        docs.append((group, article, LIBRARY_DEPS[library]))
for group, path, imports in docs:
    rel = os.path.relpath(path, ROOT)
    items = [(rel, start, body, nums, flags) for start, lang, flags, body, nums in blocks_in_markdown(path)
             if keep(lang, flags)]
    if items:
        write_group(group, imports, items)
        if rel in ARTICLES_AS_TESTS:
            write_article_test(rel, items, imports)

# Public doc comments, one group per library: every source file's blocks are compiled.
for library, imports in LIBRARY_DEPS.items():
    items = []
    for source in sorted(glob.glob(os.path.join(ROOT, "Sources", library, "**", "*.swift"), recursive=True)):
        rel = os.path.relpath(source, ROOT)
        items += [(rel, start, body, nums, flags) for start, lang, flags, body, nums in blocks_in_doc_comments(source)
                  if keep(lang, flags)]
    if items:
        write_group("Doc_" + library, list(dict.fromkeys(["Foundation", "FoundationNetworking?"] + imports)), items)
print("fragments", fragments)
