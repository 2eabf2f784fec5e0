#!/usr/bin/env python3
"""./synclab mutate: how strong a lab's graded tests are, measured by seeded synchronization bugs.

Each mutant is the lab's reference solution (solutions/NN-topic/, the student files that
labs/NN-topic/.skeleton.sha256 names) with one synchronization change: a barrier or fence deleted,
a scope narrowed, a memory order weakened, volatile dropped, an atomic read-modify-write made
plain. Each is graded like a submission (./synclab grade); it is killed when it loses points,
survives when it keeps them all, and is stillborn when it does not compile. A survivor listed in
tests/labs/mutants/NN.tsv (reviewed: the change is harmless there, with the reason) is
equivalent; any other survivor is a hole in the graded tests.

  ./synclab mutate --lab NN [--sample K --seed S] [--operators A,B] [--list] [--out FILE]
                   [--hidden DIR] [--include-provided]

Code that the skeleton already provides (a line and the 3 lines either side stand verbatim in
labs/NN-topic/: count_naive, a slide's kernel given as an example) is the lab's, not the
student's: its mutants are listed and not graded unless --include-provided.

--list prints the mutants without grading them. --sample K grades K mutants drawn with seed S
(default 1). --hidden DIR grades with an instructor's hidden tests (./synclab grade --hidden).
The table (site, operator, score, verdict) goes to --out (default build/mutants/NN.tsv) and the
summary to the terminal: killed / (mutants - equivalent - stillborn).
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Operators: name -> (pattern, replacement or function, what it models). Applied one site at a time.
ATOMIC_FUNCS = "Add|Sub|Exch|Min|Max|Inc|Dec|And|Or|Xor|CAS"
OPERATORS = [
    # (a deleted statement leaves an empty one, so that `if (last) __threadfence();` still compiles)
    ("del-syncthreads", r"__syncthreads\(\)\s*;", ";", "a block barrier deleted"),
    ("del-syncwarp", r"__syncwarp\([^;]*?\)\s*;", ";", "a warp barrier deleted"),
    ("del-fence", r"(?:__threadfence(?:_block|_system)?\(\)|cuda::atomic_thread_fence\([^;]*?\))\s*;", ";",
     "a fence deleted"),
    ("narrow-fence", r"__threadfence_system\(\)|__threadfence\(\)",
     lambda m: "__threadfence()" if m.group(0) == "__threadfence_system()" else "__threadfence_block()",
     "a fence's scope narrowed (system to device, device to block)"),
    ("narrow-scope", r"thread_scope_system|thread_scope_device",
     lambda m: "thread_scope_device" if m.group(0) == "thread_scope_system" else "thread_scope_block",
     "an atomic's scope narrowed (system to device, device to block)"),
    ("narrow-atomic", r"\batomic(" + ATOMIC_FUNCS + r")(_system)?\(",
     lambda m: "atomic" + m.group(1) + ("(" if m.group(2) else "_block("),
     "an atomic function's scope narrowed (_system to device, device to _block)"),
    ("narrow-alias", r"\bSystemAtomic<([^<>;]+)>", lambda m: "cuda::atomic_ref<%s, cuda::thread_scope_device>" % m.group(1),
     "a system-scope atomic alias (lab 08's SystemAtomic) at device scope"),
    ("weaken-order", r"memory_order_(?:acquire|release|acq_rel|seq_cst)", "memory_order_relaxed",
     "a memory order weakened to relaxed"),
    ("weaken-default", r"\.load\(\)|\.store\(([^(),;]*)\)",
     lambda m: ".load(cuda::memory_order_relaxed)" if m.group(0) == ".load()"
     else ".store(%s, cuda::memory_order_relaxed)" % m.group(1),
     "an atomic load or store of the default order (seq_cst) made relaxed"),
    ("drop-volatile", r"\bvolatile\s+", "", "volatile dropped"),
    ("plain-rmw", r"\batomic(Add|Exch|CAS)\(", None, "an atomic read-modify-write made a plain read and write"),
]


# What the advice of a killed mutant's first failed case must name: the construct the mutant took
# away, so that following the advice undoes the mutation (the reference, which passes). Matched
# against the failed case's output (its explanation and the simulator's reports).
ADVICE = {
    "del-syncthreads": r"__syncthreads\(\)",
    "del-syncwarp": r"__syncwarp\(\)",
    "del-fence": r"__threadfence|atomic_thread_fence|fence|memory_order_(?:acquire|release|acq_rel|seq_cst)",
    "narrow-fence": r"__threadfence_system\(\)|__threadfence\(\)|system[- ]scope|device[- ]scope|thread_scope_(?:system|device)",
    "narrow-scope": r"thread_scope_(?:system|device)|system[- ]scope|device[- ]scope|\.sys\b|\.gpu\b",
    "narrow-atomic": r"atomic\w*_system|atomic(?:Add|Sub|Exch|Min|Max|Inc|Dec|And|Or|Xor|CAS)\b|device[- ]scope|system[- ]scope",
    "narrow-alias": r"thread_scope_system|system[- ]scope",
    "weaken-order": r"memory_order_(?:acquire|release|acq_rel|seq_cst)|\bacquire|\brelease|seq_cst|__threadfence",
    "weaken-default": r"seq_cst|memory_order_(?:acquire|release|seq_cst)|\bacquire|\brelease|fence",
    "drop-volatile": r"volatile|cuda::atomic_ref|atomic|acquire",
    "plain-rmw": r"atomic",
}


# Advice is in the imperative: a clause that starts with one of these verbs ("use the device-scope
# form", "Store the flag with memory_order_release"), or names the alternative ("... instead of ...").
ADVICE_VERB = re.compile(r"(?:^|[,(]\s*|\bor\s+|\band\s+|\bthen\s+)(?:[Uu]se|[Mm]ake|[Pp]ut|[Aa]dd|[Ss]tore|[Ll]oad|"
                         r"[Mm]ove|[Ww]ait|[Kk]eep|[Pp]ublish|[Aa]ccess|[Cc]all|[Gg]ive|[Rr]eplace|[Dd]eclare|"
                         r"[Ii]nsert|[Tt]ake|[Rr]aise|[Pp]ass|[Cc]hange|[Ll]et|[Ww]rite|[Rr]ead|[Ff]orbid)\b"
                         r"|\binstead of\b")


def advice_names_fix(op, output):
    """The first sentence of `output` that gives advice (a verb such as use, make, put, add, store
    ... with) and names what the mutant `op` took away ("" when none does)."""
    pattern = ADVICE.get(op)
    if not pattern or not output:
        return ""
    text = re.sub(r"=========\s*", "", output)
    for sentence in re.split(r"(?<=[.;:])\s+|\n", text):
        sentence = sentence.strip()
        if re.search(pattern, sentence) and ADVICE_VERB.search(sentence):
            return " ".join(sentence.split())[:240]
    return ""


def strip_comments_mask(text):
    """A list of booleans: True where the character is inside a comment or a string."""
    mask = [False] * len(text)
    i, n = 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                mask[k] = True
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                mask[k] = True
            i = j
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                mask[k] = True
            i = j + 1
        else:
            i += 1
    return mask


def call_args(text, open_paren):
    """The arguments of the call whose '(' is at open_paren, split at top-level commas, and the
    index just past its ')'; None when the parentheses do not balance."""
    depth, args, start, i = 0, [], open_paren + 1, open_paren
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
            if depth == 0:
                args.append(text[start:i].strip())
                return args, i + 1
        elif c == "," and depth == 1:
            args.append(text[start:i].strip())
            start = i + 1
        i += 1
    return None


def plain_rmw(text, m):
    """atomicAdd(p, v) -> a plain read and write of *p returning the old value (one site)."""
    func = m.group(1)
    got = call_args(text, m.end() - 1)
    if not got:
        return None
    args, end = got
    if func in ("Add", "Exch") and len(args) == 2:
        new = "o_ + (%s)" % args[1] if func == "Add" else "(%s)" % args[1]
        repl = "([&] { auto* p_ = (%s); auto o_ = *p_; *p_ = %s; return o_; }())" % (args[0], new)
    elif func == "CAS" and len(args) == 3:
        repl = ("([&] { auto* p_ = (%s); auto o_ = *p_; if (o_ == (%s)) *p_ = (%s); return o_; }())"
                % (args[0], args[1], args[2]))
    else:
        return None
    return m.start(), end, repl


def provided_lines(skeleton_text, text, context=3):
    """The 1-based lines of `text` (a reference solution's file) in code the skeleton provides: the
    line with `context` lines either side stands verbatim in the skeleton (count_naive, a slide's
    kernel given as an example). Code the student writes never stands in the skeleton (it holds a
    TODO there)."""
    lines = text.split("\n")
    skel = skeleton_text.split("\n")
    windows = set()
    w = 2 * context + 1
    for i in range(0, max(len(skel) - w + 1, 0)):
        windows.add(tuple(x.strip() for x in skel[i:i + w]))
    out = set()
    for n in range(len(lines)):
        lo, hi = n - context, n + context + 1
        if lo < 0 or hi > len(lines):
            continue
        if tuple(x.strip() for x in lines[lo:hi]) in windows:
            out.add(n + 1)
    return out


def mutants(lab_dir, sol_dir):
    files = []
    with open(os.path.join(lab_dir, ".skeleton.sha256")) as f:
        for line in f:
            parts = line.split()
            if len(parts) == 2:
                files.append(parts[1])
    out = []
    for name in files:
        path = os.path.join(sol_dir, name)
        if not os.path.exists(path):
            continue
        text = open(path).read()
        skel_path = os.path.join(lab_dir, name)
        provided = provided_lines(open(skel_path).read(), text) if os.path.exists(skel_path) else set()
        mask = strip_comments_mask(text)
        for op, pattern, repl, _ in OPERATORS:
            for m in re.finditer(pattern, text):
                if mask[m.start()]:
                    continue
                if op == "plain-rmw":
                    got = plain_rmw(text, m)
                    if not got:
                        continue
                    start, end, new = got
                else:
                    start, end = m.start(), m.end()
                    new = repl(m) if callable(repl) else repl
                line = text.count("\n", 0, start) + 1
                col = start - (text.rfind("\n", 0, start) + 1) + 1
                before = text[start:end].strip()
                out.append({
                    "file": name, "line": line, "col": col, "op": op, "from": before, "provided": line in provided,
                    "to": "(deleted)" if new.strip() in ("", ";") else new.strip(), "text": text[:start] + new + text[end:],
                })
    return files, out


def site(mu):
    return "%s:%d:%d" % (mu["file"], mu["line"], mu["col"])


def read_equivalents(path):
    eq = {}
    if not os.path.exists(path):
        return eq
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or not parts[2].strip():
                sys.exit("mutate: %s:%d: want SITE<TAB>OPERATOR<TAB>REASON" % (path, n))
            eq[(parts[0], parts[1])] = parts[2]
    return eq


def main():
    ap = argparse.ArgumentParser(prog="./synclab mutate", description=__doc__.split("\n\n")[0])
    ap.add_argument("--lab", required=True)
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--operators", default="")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--out", default="")
    ap.add_argument("--hidden", default="")
    ap.add_argument("--include-provided", action="store_true")
    # (re-grade chosen mutants: "SITE OPERATOR" pairs, comma-separated, as the table names them)
    ap.add_argument("--only", default="")
    ap.add_argument("--solutions", default=os.path.join(ROOT, "solutions"))
    # (tests: grade with this synclab-grade directly, as ./synclab grade would after its build)
    ap.add_argument("--grader", default="")
    a = ap.parse_args()
    labs = sorted(d for d in os.listdir(os.path.join(ROOT, "labs")) if d[:2].isdigit() and d[:2] == a.lab.zfill(2)[:2])
    if not labs:
        sys.exit("mutate: there is no lab '%s' (labs/NN-topic/)" % a.lab)
    lab = labs[0]
    nn = lab[:2]
    sol_dir = os.path.join(a.solutions, lab)
    if not os.path.isdir(sol_dir):
        sys.exit("mutate: no reference solution in %s (a student release has none: mutation needs it)" % sol_dir)
    files, all_mutants = mutants(os.path.join(ROOT, "labs", lab), sol_dir)
    if a.operators:
        want = set(a.operators.split(","))
        unknown = want - {o[0] for o in OPERATORS}
        if unknown:
            sys.exit("mutate: unknown operator(s) %s; operators: %s" % (",".join(sorted(unknown)),
                                                                       ",".join(o[0] for o in OPERATORS)))
        all_mutants = [m for m in all_mutants if m["op"] in want]
    if a.only:
        wanted = {w.strip() for w in a.only.split(",") if w.strip()}
        all_mutants = [m for m in all_mutants if site(m) + " " + m["op"] in wanted]
    provided = [m for m in all_mutants if m["provided"]]
    if not a.include_provided:
        all_mutants = [m for m in all_mutants if not m["provided"]]
    eq_path = os.path.join(ROOT, "tests", "labs", "mutants", nn + ".tsv")
    equivalents = read_equivalents(eq_path)
    chosen = all_mutants
    if a.sample and a.sample < len(all_mutants):
        chosen = random.Random(a.seed).sample(all_mutants, a.sample)
        chosen.sort(key=lambda m: (m["file"], m["line"], m["col"], m["op"]))
    if a.list:
        for m in chosen:
            eq = equivalents.get((site(m), m["op"]))
            print("%-28s %-16s %s -> %s%s%s" % (site(m), m["op"], m["from"], m["to"],
                                                "   [equivalent: %s]" % eq if eq else "",
                                                "   [provided code]" if m["provided"] else ""))
        print("%d mutants of lab %s (%s)%s" % (
            len(chosen), nn, ", ".join(files),
            "" if a.include_provided or not provided else
            "; %d more in code the skeleton provides, not graded (--include-provided)" % len(provided)))
        return 0
    out = a.out or os.path.join(ROOT, "build", "mutants", nn + ".tsv")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    work = tempfile.mkdtemp(prefix="synclab-mutate-")
    rows, counts = [], {"killed": 0, "survived": 0, "equivalent": 0, "stillborn": 0}
    misled = []  # killed mutants whose first failed case's advice names nothing the mutant took away
    try:
        for i, m in enumerate(chosen, 1):
            sub = os.path.join(work, "m%03d" % i)
            shutil.copytree(sol_dir, sub)
            with open(os.path.join(sub, m["file"]), "w") as f:
                f.write(m["text"])
            results = os.path.join(work, "m%03d.json" % i)
            if a.grader:
                cmd = [a.grader, "grade", "--lab", nn, "--submission", sub, "--results", results, "--backend", "sim",
                       "--keep", os.path.join(work, "m%03d-programs" % i), "--quiet"]
            else:
                cmd = [os.path.join(ROOT, "synclab"), "grade", "--lab", nn, "--submission", sub, "--results", results,
                       "--backend", "sim", "--quiet"]
            if a.hidden:
                cmd += ["--hidden", os.path.abspath(a.hidden)]
            print("[%d/%d] %s %s: %s -> %s ..." % (i, len(chosen), site(m), m["op"], m["from"], m["to"]), flush=True)
            p = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            score, max_score, failed, failed_output = None, None, "", ""
            if os.path.exists(results):
                j = json.load(open(results))
                # (the find-the-bug cases grade findbug.txt and findbug.cu, which no mutant changes)
                tests = [t for t in j.get("tests", []) if "findbug" not in t.get("tags", [])]
                score = sum(t.get("score", 0) for t in tests)
                max_score = sum(t.get("max_score", 0) for t in tests)
                first = next((t for t in tests if t.get("score", 0) < t.get("max_score", 0)), None)
                failed = first["name"] if first else ""
                failed_output = first.get("output", "") if first else ""
            built = score is not None and "did not compile" not in p.stdout and not re.search(
                r"compil\w* (?:failed|error)", p.stdout)
            eq = equivalents.get((site(m), m["op"]))
            if score is None or (max_score and score == 0 and not built):
                verdict = "stillborn"
            elif score < max_score:
                verdict = "killed"
            elif eq:
                verdict = "equivalent"
            else:
                verdict = "survived"
            counts[verdict] += 1
            advice = ""
            if verdict == "killed":
                advice = advice_names_fix(m["op"], failed_output)
                if not advice:
                    # A case that shows only the report's title gives the replay line that prints the
                    # whole report: its advice is what the student reads next.
                    rm = re.search(r"replay: (\S+ [^\n]*)", failed_output)
                    if rm:
                        try:
                            rp = subprocess.run(rm.group(1), shell=True, cwd=ROOT, stdout=subprocess.PIPE,
                                                stderr=subprocess.STDOUT, text=True, timeout=300)
                            advice = advice_names_fix(m["op"], rp.stdout)
                            if advice:
                                advice = "(replay) " + advice
                        except subprocess.TimeoutExpired:
                            pass
                if not advice:
                    misled.append(site(m) + " " + m["op"])
            print("    %s (%s of %s)%s" % (verdict, score, max_score, ": " + failed if verdict == "killed" else ""),
                  flush=True)
            if verdict == "killed":
                print("    advice: %s" % (advice or "(names nothing the mutant took away)"), flush=True)
            rows.append((site(m), m["op"], m["from"], m["to"], "%s/%s" % (score, max_score), verdict, eq or failed,
                         advice if verdict == "killed" else ""))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(out, "w") as f:
        f.write("site\toperator\tfrom\tto\tscore\tverdict\tnote\tadvice\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")
    live = counts["killed"] + counts["survived"]
    rate = 100.0 * counts["killed"] / live if live else 100.0
    print("lab %s: %d mutants: %d killed, %d survived, %d equivalent (reviewed, %s), %d stillborn; "
          "killed %.1f%% of the non-equivalent ones; table: %s" % (
              nn, len(rows), counts["killed"], counts["survived"], counts["equivalent"],
              os.path.relpath(eq_path, ROOT), counts["stillborn"], rate, os.path.relpath(out, ROOT)))
    if provided and not a.include_provided:
        print("  not graded: %d mutants in code the skeleton provides (--include-provided grades them)" % len(provided))
    for r in rows:
        if r[5] == "survived":
            print("  survived: %s %s (%s -> %s)" % (r[0], r[1], r[2], r[3]))
    if counts["killed"]:
        print("advice: the first failed case names what the mutant took away for %d of %d killed mutants" % (
            counts["killed"] - len(misled), counts["killed"]))
    for x in misled:
        print("  advice names nothing the mutant took away: %s" % x)
    return 1 if counts["survived"] or misled else 0


if __name__ == "__main__":
    sys.exit(main())
