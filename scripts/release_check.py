#!/usr/bin/env python3
"""The student release's answer check and its decks (./synclab export-student).

  release_check.py decks RELEASE
      In every slides/*.md of RELEASE, replaces each code block marked as an answer with a note:
      the student variant of the deck. A block is marked by a line `<!-- answer (WHAT) -->` right
      before its opening fence (WHAT: which task it answers); the instructors' decks keep it.

  release_check.py check ROOT RELEASE [--window N]
      Fails (exit 1, one line per finding) when a text file of RELEASE holds N consecutive code
      lines (default 4) of a reference solution (ROOT/solutions/) or a wrong solution
      (ROOT/tests/labs/wrong/) or another design of an open-design task (ROOT/tests/labs/designs/)
      that the lab's own files (ROOT/labs/, the skeletons and the provided
      code, which the release holds anyway) do not hold. Lines are compared normalized: `//`
      comments cut, blanks squeezed, lines of braces and punctuation alone and lines shorter than
      four characters skipped, so a copy re-indented or with other comments is still found.
"""
import os
import re
import sys

TEXT_SUFFIXES = (".cu", ".cuh", ".cpp", ".cc", ".h", ".hpp", ".c", ".py", ".sh", ".md", ".txt", ".tsv", ".json",
                 ".css", ".html", ".cmake", ".in", ".yml", ".yaml", ".toml")
ANSWER = re.compile(r"^\s*<!--\s*answer\b(.*?)-->\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def norm_lines(path):
    """(normalized line, line number) of a text file's code-like lines."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (UnicodeDecodeError, OSError):
        return []
    out = []
    for number, line in enumerate(text.split("\n"), 1):
        line = re.sub(r"//.*$", "", line)
        line = re.sub(r"\s+", " ", line.strip())
        if len(line) < 4 or re.fullmatch(r"[{}()\[\];,.\s]*", line):
            continue
        out.append((line, number))
    return out


def windows(path, n):
    lines = norm_lines(path)
    for k in range(len(lines) - n + 1):
        yield tuple(x[0] for x in lines[k:k + n]), lines[k][1], lines[k + n - 1][1]


def files_under(top):
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if d not in (".git", "node_modules") and not d.startswith("build"))
        for name in sorted(filenames):
            yield os.path.join(dirpath, name)


def check(root, release, n):
    forbidden = {}
    for top in ("solutions", "tests/labs/wrong", "tests/labs/designs"):
        for path in files_under(os.path.join(root, top)):
            if path.endswith(TEXT_SUFFIXES):
                for w, first, _ in windows(path, n):
                    forbidden.setdefault(w, (os.path.relpath(path, root), first))
    for path in files_under(os.path.join(root, "labs")):
        if path.endswith(TEXT_SUFFIXES):
            for w, _, _ in windows(path, n):
                forbidden.pop(w, None)
    found = 0
    for path in files_under(release):
        if not path.endswith(TEXT_SUFFIXES) and os.path.basename(path) != "synclab":
            continue
        last_end = 0
        for w, first, end in windows(path, n):
            if w in forbidden and first > last_end:
                source, line = forbidden[w]
                print(f"{os.path.relpath(path, release)}:{first}-{end}: the same {n} code lines as {source}:{line}")
                found += 1
                last_end = end
    return found


def student_decks(release):
    changed = 0
    slides = os.path.join(release, "slides")
    if not os.path.isdir(slides):
        return 0
    for name in sorted(os.listdir(slides)):
        if not name.endswith(".md"):
            continue
        path = os.path.join(slides, name)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        out, i = [], 0
        while i < len(lines):
            m = ANSWER.match(lines[i])
            if not m:
                out.append(lines[i])
                i += 1
                continue
            what = m.group(1).strip().strip("()").strip()
            j = i + 1
            if j >= len(lines) or not FENCE.match(lines[j]):
                raise SystemExit(f"{path}:{i + 1}: an answer mark must stand right before a code block's opening fence")
            fence = FENCE.match(lines[j]).group(1)
            k = j + 1
            while k < len(lines) and not lines[k].lstrip().startswith(fence):
                k += 1
            if k >= len(lines):
                raise SystemExit(f"{path}:{j + 1}: the code block after the answer mark is not closed")
            out.append("> *The code of this slide is " + (f"the answer to {what}" if what else "an answer") +
                       ": it is left out of the student release.*")
            changed += 1
            i = k + 1
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(out))
    return changed


def main(argv):
    if len(argv) >= 2 and argv[0] == "decks":
        print(f"student decks: {student_decks(argv[1])} answer block(s) left out")
        return 0
    if len(argv) >= 3 and argv[0] == "check":
        n = 4
        if "--window" in argv:
            n = int(argv[argv.index("--window") + 1])
        found = check(argv[1], argv[2], n)
        return 1 if found else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
