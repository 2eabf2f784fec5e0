#!/usr/bin/env python3
"""The statistics rank.py ranks with, against values worked out by hand (ctest profile.rank_stats):
average ranks for ties, Spearman's rank correlation with and without ties, the estimates' tie
tolerance, and the .host reader on logs written here (its answer, and its errors).

  rank_stats.py
"""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rank  # noqa: E402

failures = 0


def expect(ok, what):
    global failures
    print(("ok:   " if ok else "FAIL: ") + what)
    failures += not ok


def near(a, b):
    return abs(a - b) < 1e-9


# Average ranks: the two 2s share places 2 and 3.
expect(rank.ranks([1, 2, 2, 3]) == [1, 2.5, 2.5, 4], "ranks([1, 2, 2, 3]) == [1, 2.5, 2.5, 4]")
# Same order: 1; reversed: -1.
expect(near(rank.spearman([1, 2, 3], [10, 20, 30]), 1.0), "the same order: 1")
expect(near(rank.spearman([1, 2, 3], [30, 20, 10]), -1.0), "the reverse order: -1")
# Lab 08's group: GPU ranks 4 3 2 1, estimate ranks 3.5 3.5 2 1. By hand: the rank means are 2.5;
# deviations (1.5, .5, -.5, -1.5) and (1, 1, -.5, -1.5); covariance 4.5, variances 5 and 4.5;
# 4.5 / sqrt(22.5) = 0.948683...
expect(near(rank.spearman([361.4, 220.6, 106.0, 46.2], [49.28, 49.28, 19.96, 8.66]), 4.5 / 22.5 ** 0.5),
       "a tie in the estimate: 4.5 / sqrt(22.5)")
# Lab 06's pushes: estimates 596.7822 and 596.7812 are one estimate within EST_TIE (GPU ranks 3 2 1,
# estimate ranks 2.5 2.5 1: 1.5 / sqrt(3) = 0.866...), but two without it (1.0).
gpu, est = [3290.40, 3140.64, 1391.36], [596.7822012, 596.7812006, 320.09]
expect(near(rank.spearman(gpu, est, rank.EST_TIE), 1.5 / 3 ** 0.5), "estimates 0.0002% apart tie: 1.5 / sqrt(3)")
expect(near(rank.spearman(gpu, est), 1.0), "without the tolerance they do not")
# Lab 09's closest pair (3.40 and 3.41 us, 0.3% apart) is not a tie.
expect(rank.ranks([3.40, 3.41], rank.EST_TIE) == [1, 2], "estimates 0.3% apart keep their order")

# The .host reader: the median over the logs of the row's first number, times N.
with tempfile.TemporaryDirectory() as tmp:
    logs = []
    for i, median in enumerate(["5.30", "5.26", "5.53"]):
        p = os.path.join(tmp, f"run{i}.txt")
        with open(p, "w") as f:
            f.write("| method | median (us) | 99th percentile (us) | results |\n|---|---:|---:|---|\n")
            f.write(f"| memcpy + launch | 17.7 | 31.5 | right |\n| persistent kernel polling | {median} | 5.45 | right |\n")
        logs.append(p)
    host = os.path.join(tmp, "v-h200.host")
    with open(host, "w") as f:
        f.write("# a comment\n" + "".join(f"log {p}\n" for p in logs) + "row persistent kernel polling\ntimes 20\n")
    expect(near(rank.read_host_time(host), 5.30 * 20), "the .host time: median 5.30 of three runs, x 20")

    def fails(text, wanted):
        bad = os.path.join(tmp, "bad.host")
        with open(bad, "w") as f:
            f.write(text)
        p = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {os.path.dirname(rank.__file__)!r}); "
                            f"import rank; rank.read_host_time({bad!r})"], capture_output=True, text=True)
        expect(p.returncode != 0 and wanted in p.stderr, f".host error names it: {wanted!r} ({p.stderr.strip()})")

    fails(f"log {logs[0]}\nrow persistent kernel polled\ntimes 20\n", "has 0 rows 'persistent kernel polled'")
    fails(f"log {tmp}/no-such.txt\nrow x\ntimes 1\n", "no log")
    fails(f"log {logs[0]}\nrow x\n", "needs at least one 'log', a 'row' and 'times'")
    fails(f"logs {logs[0]}\n", "unknown key 'logs'")

print(f"rank_stats: {failures} failure(s)")
sys.exit(1 if failures else 0)
