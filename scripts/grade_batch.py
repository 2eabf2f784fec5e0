#!/usr/bin/env python3
"""./synclab grade --lab NN --batch DIR: grades every submission in a folder (scripts/grade_batch.py).

DIR holds one submission per student: a folder of the student's files, or a .zip of them (a zip
whose files sit in one top folder is taken from inside it). Gradescope's export of a programming
assignment has this layout (one submission_NNN/ folder each, beside submission_metadata.yml,
which is ignored). Each submission is graded as `./synclab grade --submission` grades it, into
OUT/NAME.json (NAME: the folder's or zip's name); OUT/gradebook.csv then has one row per student:
student, total, max_score, status (graded, or why not), and the points of each case. A submission
whose results are newer than its files is not graded again (the batch resumes where it stopped;
--again grades all). A submission that does not compile, crashes or hangs gets its row (the
grader scores it, or the row says what failed); the batch goes on. Each submission is graded with
its student's id (the grader's --student, which draws the student's own cases in tasks with
variants): the first submitter's email in Gradescope's submission_metadata.yml, else its name.
"""
import argparse
import concurrent.futures
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import zipfile


def newest_mtime(path):
    newest = os.path.getmtime(path)
    for dirpath, _, names in os.walk(path):
        for n in names:
            try:
                newest = max(newest, os.path.getmtime(os.path.join(dirpath, n)))
            except OSError:
                pass
    return newest


def unpack(zip_path, dest):
    """Extracts a zip into dest (refusing names that leave it); returns the folder to grade."""
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    with zipfile.ZipFile(zip_path) as z:
        for info in z.infolist():
            target = os.path.realpath(os.path.join(dest, info.filename))
            if not target.startswith(os.path.realpath(dest) + os.sep):
                raise ValueError(f"{info.filename}: a name outside the zip's folder")
            if info.is_dir():
                os.makedirs(target, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(target), exist_ok=True)
            with z.open(info) as src, open(target, "wb") as out:
                shutil.copyfileobj(src, out)
    return descend(dest)


def descend(folder):
    """A folder whose only entry is one folder (a zip of a folder): that folder."""
    entries = [e for e in os.listdir(folder) if not e.startswith(".") and e != "__MACOSX"]
    if len(entries) == 1 and os.path.isdir(os.path.join(folder, entries[0])):
        return descend(os.path.join(folder, entries[0]))
    return folder


def submissions(batch):
    found = []
    for name in sorted(os.listdir(batch)):
        path = os.path.join(batch, name)
        if name.startswith("."):
            continue
        if os.path.isdir(path):
            found.append((name, path, False))
        elif name.lower().endswith(".zip"):
            found.append((name[:-4], path, True))
    return found


def metadata_emails(batch):
    """Gradescope's export: submission_metadata.yml maps each submission_NNN to its submitters
    (":submitters:", then "- :name:", ":sid:", ":email:" lines). The first submitter's email of
    each; {} without the file. (A line-by-line reading: the file is written by Gradescope in this
    one shape, and the project has no YAML library.)"""
    path = os.path.join(batch, "submission_metadata.yml")
    if not os.path.exists(path):
        return {}
    ids, current = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            m = re.match(r"^(\S+):\s*$", line)
            if m:
                current = m.group(1).strip("'\"")
                continue
            m = re.match(r"^\s*-?\s*:email:\s*(\S+)\s*$", line)
            if m and current and current not in ids:
                ids[current] = m.group(1).strip("'\"")
    return ids


def main():
    ap = argparse.ArgumentParser(prog="./synclab grade --batch", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--grader", required=True)
    ap.add_argument("--lab", required=True)
    ap.add_argument("--batch", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--again", action="store_true")
    ap.add_argument("--hidden")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--timeout")
    args = ap.parse_args()
    if not os.path.isdir(args.batch):
        sys.exit(f"synclab grade --batch: {args.batch} is not a folder")
    if args.jobs < 1:
        sys.exit("synclab grade --batch: --jobs takes 1 or more")
    subs = submissions(args.batch)
    ids = metadata_emails(args.batch)
    if not subs:
        sys.exit(f"synclab grade --batch: {args.batch} holds no submission (a folder or a .zip per student)")
    os.makedirs(args.out, exist_ok=True)
    unpacked = os.path.join(args.out, "unpacked")

    rows = {}
    todo = []
    for name, path, is_zip in subs:
        results = os.path.join(args.out, name + ".json")
        if (not args.again and os.path.exists(results) and os.path.getmtime(results) >= newest_mtime(path)):
            rows[name] = ("graded (earlier run)", results)
        else:
            todo.append((name, path, is_zip, results))
    print(f"grading {len(todo)} of {len(subs)} submissions of lab {args.lab} from {args.batch} with {args.jobs} "
          f"job(s); results in {args.out}" + (f" ({len(subs) - len(todo)} graded before: kept)" if len(subs) > len(todo)
                                               else ""), flush=True)
    lock = threading.Lock()
    start = time.time()
    done = [0]

    def grade(item):
        name, path, is_zip, results = item
        t0 = time.time()
        status = "graded"
        try:
            folder = unpack(path, os.path.join(unpacked, name)) if is_zip else descend(path)
            cmd = [args.grader, "grade", "--lab", args.lab, "--submission", os.path.abspath(folder), "--results",
                   results + ".part", "--backend", args.backend, "--keep",
                   os.path.join(args.out, "programs", name), "--quiet",
                   # (the gradings share the machine's cores)
                   "--parallel", str(max(1, (os.cpu_count() or 1) // args.jobs))]
            cmd += ["--student", ids.get(name, name)]
            if args.hidden:
                cmd += ["--hidden", args.hidden]
            if args.timeout:
                cmd += ["--timeout", args.timeout]
            p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
            if os.path.exists(results + ".part"):
                os.replace(results + ".part", results)
            else:
                last = [l for l in p.stdout.splitlines() if l.strip()][-1:] or [f"exit status {p.returncode}"]
                status = "not graded: the grader wrote no results (" + last[0].strip()[:200] + ")"
        except (ValueError, zipfile.BadZipFile, OSError) as e:
            status = f"not graded: {e}"
        with lock:
            rows[name] = (status, results)
            done[0] += 1
            elapsed = time.time() - start
            left = len(todo) - done[0]
            eta = elapsed / done[0] * left
            score = ""
            if status == "graded":
                j = json.load(open(results))
                score = f"{j.get('score', 0):g} of {sum(t.get('max_score', 0) for t in j.get('tests', [])):g}"
            else:
                score = status
            print(f"[{done[0]}/{len(todo)}] {name}: {score} ({time.time() - t0:.0f} s; "
                  f"{left} left, about {int(eta) // 60}m{int(eta) % 60:02d}s)", flush=True)

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(grade, todo))

    # The gradebook: the cases in the order of the first graded results.
    cases = []
    for name, _, _ in subs:
        status, results = rows[name]
        if status.startswith("graded") and os.path.exists(results):
            for t in json.load(open(results)).get("tests", []):
                if t["name"] not in cases:
                    cases.append(t["name"])
    csv_path = os.path.join(args.out, "gradebook.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["student", "total", "max_score", "status"] + cases)
        for name, _, _ in subs:
            status, results = rows[name]
            if status.startswith("graded") and os.path.exists(results):
                j = json.load(open(results))
                points = {t["name"]: t.get("score", 0) for t in j.get("tests", [])}
                total_max = sum(t.get("max_score", 0) for t in j.get("tests", []))
                # The first case's "not run: ..." when no case of the lab's tasks ran (did not compile or
                # link, broke a rule; the find-the-bug cases are graded on their own files).
                tests = [t for t in j.get("tests", []) if "findbug" not in t.get("tags", [])]
                how = "graded"
                if tests and all(t.get("output", "").startswith("not run:") for t in tests):
                    how = "graded: " + tests[0]["output"].split("\n")[0][len("not run: "):].strip()
                w.writerow([name, f"{j.get('score', 0):g}", f"{total_max:g}", how] +
                           [f"{points[c]:g}" if c in points else "" for c in cases])
            else:
                w.writerow([name, "0", "", status] + ["" for _ in cases])
    failed = sum(1 for s, _ in rows.values() if not s.startswith("graded"))
    print(f"gradebook: {csv_path} ({len(subs)} students, {len(cases)} cases"
          + (f"; {failed} not graded: see their status" if failed else "") + f"); {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
