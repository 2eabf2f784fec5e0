#!/usr/bin/env python3
"""Writes the litmus tests of this folder (one CUDA program per test) from the table below, with
two independent references computed here: the sequentially consistent outcomes, by enumerating
every interleaving of the threads (what an sc run may show), and every outcome the PTX memory
model allows, by checking every candidate execution against its axioms (ptx_model.py; what a
relaxed run may show). A test also names weak outcomes that must appear under relaxed, and
outcomes PTX forbids (which the checker must agree are forbidden).

  tests/litmus/generate.py            rewrite the .cu files (and all.cu, which includes them all)
  tests/litmus/generate.py NAME...    rewrite only those tests
  tests/litmus/generate.py --check    exit 1 if a committed .cu differs from what the table gives

A thread is a list of operations on the locations x, y, z (the instance's words, all 0 at first):
  ("st", loc, value, order)        cuda::atomic_ref store
  ("st_reg", loc, reg, order)      store the value of register reg (a data dependency)
  ("ld", reg, loc, order)          atomic_ref load into register r<reg>
  ("fence", order, scope)          cuda::atomic_thread_fence
order is rlx, acq, rel or sc; scope is "device" or "block". The verdicts (PTX memory model, sm_70
and later) and their sources are in docs/memory-model.md, section "The litmus suite".
"""
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_model  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LOC = {"x": 0, "y": 1, "z": 2}

# name: (placement, threads, shown, allowed weak outcomes, forbidden outcomes, what it shows)
TESTS = {
    "mp": ("Cross", [[("st", "x", 1, "rlx"), ("st", "y", 1, "rlx")],
                     [("ld", 0, "y", "rlx"), ("ld", 1, "x", "rlx")]],
           ["r0", "r1"], ["r0=1 r1=0"], [],
           "message passing without synchronization: the flag can be seen before the data"),
    "mp_fence": ("Cross", [[("st", "x", 1, "rlx"), ("fence", "sc", "device"), ("st", "y", 1, "rlx")],
                           [("ld", 0, "y", "rlx"), ("fence", "sc", "device"), ("ld", 1, "x", "rlx")]],
                 ["r0", "r1"], [], ["r0=1 r1=0"],
                 "message passing with __threadfence() on both sides"),
    "mp_rel_acq": ("Cross", [[("st", "x", 1, "rlx"), ("st", "y", 1, "rel")],
                             [("ld", 0, "y", "acq"), ("ld", 1, "x", "rlx")]],
                   ["r0", "r1"], [], ["r0=1 r1=0"],
                   "message passing with a release store and an acquire load"),
    "mp_fence_block_cross": ("Cross", [[("st", "x", 1, "rlx"), ("fence", "sc", "block"), ("st", "y", 1, "rlx")],
                                       [("ld", 0, "y", "rlx"), ("fence", "sc", "block"), ("ld", 1, "x", "rlx")]],
                             ["r0", "r1"], ["r0=1 r1=0"], [],
                             "block-scope fences between threads of different blocks order nothing"),
    "mp_fence_block_same": ("Same", [[("st", "x", 1, "rlx"), ("fence", "sc", "block"), ("st", "y", 1, "rlx")],
                                     [("ld", 0, "y", "rlx"), ("fence", "sc", "block"), ("ld", 1, "x", "rlx")]],
                            ["r0", "r1"], [], ["r0=1 r1=0"],
                            "block-scope fences between threads of one block"),
    "sb": ("Cross", [[("st", "x", 1, "rlx"), ("ld", 0, "y", "rlx")],
                     [("st", "y", 1, "rlx"), ("ld", 1, "x", "rlx")]],
           ["r0", "r1"], ["r0=0 r1=0"], [],
           "store buffering: each thread misses the other's store"),
    "sb_fence": ("Cross", [[("st", "x", 1, "rlx"), ("fence", "sc", "device"), ("ld", 0, "y", "rlx")],
                           [("st", "y", 1, "rlx"), ("fence", "sc", "device"), ("ld", 1, "x", "rlx")]],
                 ["r0", "r1"], [], ["r0=0 r1=0"],
                 "store buffering with a sequentially consistent fence in each thread"),
    "sb_seq_cst": ("Cross", [[("st", "x", 1, "sc"), ("ld", 0, "y", "sc")],
                             [("st", "y", 1, "sc"), ("ld", 1, "x", "sc")]],
                   ["r0", "r1"], [], ["r0=0 r1=0"],
                   "store buffering with seq_cst atomics"),
    "lb": ("Cross", [[("ld", 0, "x", "rlx"), ("st", "y", 1, "rlx")],
                     [("ld", 1, "y", "rlx"), ("st", "x", 1, "rlx")]],
           ["r0", "r1"], ["r0=1 r1=1"], [],
           "load buffering: each thread's load reads the store the other thread makes after its own load"),
    "lb_fence": ("Cross", [[("ld", 0, "x", "rlx"), ("fence", "acq_rel", "device"), ("st", "y", 1, "rlx")],
                           [("ld", 1, "y", "rlx"), ("fence", "acq_rel", "device"), ("st", "x", 1, "rlx")]],
                 ["r0", "r1"], [], ["r0=1 r1=1"],
                 "load buffering with fences"),
    "lb_data": ("Cross", [[("ld", 0, "x", "rlx"), ("st_reg", "y", 0, "rlx")],
                          [("ld", 1, "y", "rlx"), ("st_reg", "x", 1, "rlx")]],
                ["r0", "r1"], [], [],
                "load buffering with data dependencies: no value out of thin air"),
    "iriw": ("Cross", [[("st", "x", 1, "rlx")], [("st", "y", 1, "rlx")],
                       [("ld", 0, "x", "rlx"), ("ld", 1, "y", "rlx")],
                       [("ld", 2, "y", "rlx"), ("ld", 3, "x", "rlx")]],
             ["r0", "r1", "r2", "r3"], ["r0=1 r1=0 r2=1 r3=0"], [],
             "independent reads of independent writes: two readers see the writes in opposite orders"),
    "iriw_fence": ("Cross", [[("st", "x", 1, "rlx")], [("st", "y", 1, "rlx")],
                             [("ld", 0, "x", "rlx"), ("fence", "sc", "device"), ("ld", 1, "y", "rlx")],
                             [("ld", 2, "y", "rlx"), ("fence", "sc", "device"), ("ld", 3, "x", "rlx")]],
                   ["r0", "r1", "r2", "r3"], [], ["r0=1 r1=0 r2=1 r3=0"],
                   "IRIW with a sequentially consistent fence between each reader's loads"),
    "corr": ("Cross", [[("st", "x", 1, "rlx")], [("ld", 0, "x", "rlx"), ("ld", 1, "x", "rlx")]],
             ["r0", "r1"], [], ["r0=1 r1=0"],
             "coherence of read-read: a newer value is never followed by an older one"),
    "coww": ("Cross", [[("st", "x", 1, "rlx"), ("st", "x", 2, "rlx")], [("ld", 0, "x", "rlx")]],
             ["x"], [], ["x=1"],
             "coherence of write-write: a thread's later store to a location wins"),
    "cowr": ("Cross", [[("st", "x", 1, "rlx"), ("ld", 0, "x", "rlx")], [("st", "x", 2, "rlx")]],
             ["r0", "x"], [], ["r0=2 x=1", "r0=0 x=1", "r0=0 x=2"],
             "coherence of write-read: a thread reads its own store or a newer one"),
    "2+2w": ("Cross", [[("st", "x", 1, "rlx"), ("st", "y", 2, "rlx")],
                       [("st", "y", 1, "rlx"), ("st", "x", 2, "rlx")]],
             ["x", "y"], ["x=1 y=1"], [],
             "two threads' stores land in opposite orders at two locations"),
    "wrc": ("Cross", [[("st", "x", 1, "rlx")], [("ld", 0, "x", "rlx"), ("st", "y", 1, "rlx")],
                      [("ld", 1, "y", "rlx"), ("ld", 2, "x", "rlx")]],
            ["r0", "r1", "r2"], ["r0=1 r1=1 r2=0"], [],
            "write-to-read causality without synchronization"),
    "wrc_rel_acq": ("Cross", [[("st", "x", 1, "rlx")], [("ld", 0, "x", "rlx"), ("st", "y", 1, "rel")],
                              [("ld", 1, "y", "acq"), ("ld", 2, "x", "rlx")]],
                    ["r0", "r1", "r2"], [], ["r0=1 r1=1 r2=0"],
                    "write-to-read causality through a release and an acquire (cumulativity)"),
    "isa2": ("Cross", [[("st", "x", 1, "rlx"), ("st", "y", 1, "rlx")],
                       [("ld", 0, "y", "rlx"), ("st", "z", 1, "rlx")],
                       [("ld", 1, "z", "rlx"), ("ld", 2, "x", "rlx")]],
             ["r0", "r1", "r2"], ["r0=1 r1=1 r2=0"], [],
             "a chain of two hand-overs without synchronization"),
    "isa2_rel_acq": ("Cross", [[("st", "x", 1, "rlx"), ("st", "y", 1, "rel")],
                               [("ld", 0, "y", "acq"), ("st", "z", 1, "rel")],
                               [("ld", 1, "z", "acq"), ("ld", 2, "x", "rlx")]],
                     ["r0", "r1", "r2"], [], ["r0=1 r1=1 r2=0"],
                     "a chain of two hand-overs, each a release and an acquire"),
    # Peterson's doorway: x = flag[0], y = flag[1], z = victim. Thread i enters when it read
    # flag[other] == 0 or victim != i.
    "peterson_rel_acq": ("Cross", [[("st", "x", 1, "rel"), ("st", "z", 0, "rel"), ("ld", 0, "y", "acq"),
                                    ("ld", 1, "z", "acq")],
                                   [("st", "y", 1, "rel"), ("st", "z", 1, "rel"), ("ld", 2, "x", "acq"),
                                    ("ld", 3, "z", "acq")]],
                         ["r0", "r2"], ["r0=0 r2=0"], [],
                         "Peterson's doorway with release stores and acquire loads: both threads read the "
                         "other's flag as 0 and both enter"),
    "peterson_fence_one": ("Cross", [[("st", "x", 1, "rel"), ("st", "z", 0, "rel"), ("fence", "sc", "device"),
                                      ("ld", 0, "y", "acq"), ("ld", 1, "z", "acq")],
                                     [("st", "y", 1, "rel"), ("st", "z", 1, "rel"), ("fence", "sc", "device"),
                                      ("ld", 2, "x", "acq"), ("ld", 3, "z", "acq")]],
                           ["r0", "r1", "r2", "r3", "z"], ["r0=0 r1=0 r2=1 r3=0 z=0"], [],
                           "Peterson's doorway with one fence.sc between the victim store and the flag "
                           "load: both still enter (the victim stores land in coherence order against "
                           "their order in time)"),
    "peterson_seq_cst": ("Cross", [[("st", "x", 1, "sc"), ("st", "z", 0, "sc"), ("ld", 0, "y", "sc"),
                                    ("ld", 1, "z", "sc")],
                                   [("st", "y", 1, "sc"), ("st", "z", 1, "sc"), ("ld", 2, "x", "sc"),
                                    ("ld", 3, "z", "sc")]],
                         ["r0", "r1", "r2", "r3", "z"], [], [],
                         "Peterson's doorway with seq_cst atomics: never both inside"),
}


def sc_outcomes(threads, shown):
    """Every outcome of every interleaving (the threads' operations in program order)."""
    out = set()
    counts = [len(t) for t in threads]
    labels = [i for i, n in enumerate(counts) for _ in range(n)]
    for order in set(itertools.permutations(labels)):
        mem = {"x": 0, "y": 0, "z": 0}
        regs = [0, 0, 0, 0]
        pc = [0] * len(threads)
        for t in order:
            op = threads[t][pc[t]]
            pc[t] += 1
            if op[0] == "st":
                mem[op[1]] = op[2]
            elif op[0] == "st_reg":
                mem[op[1]] = regs[op[2]]
            elif op[0] == "ld":
                regs[op[1]] = mem[op[2]]
        out.add(" ".join(f"{s}={regs[int(s[1])] if s[0] == 'r' else mem[s]}" for s in shown))
    return out


def ptx_allowed(placement, threads, shown):
    """Every outcome of an execution the PTX memory model allows (ptx_model.py). cuda::atomic_ref
    orders map as libcu++ compiles them for sm_70 and later: relaxed, release and acquire to the
    same PTX orders, a seq_cst store to fence.sc then st.relaxed, a seq_cst load to fence.sc then
    ld.acquire (NVIDIA/cccl libcudacxx, cuda_ptx_generated.h)."""
    scope = "cta" if placement == "Same" else "gpu"
    sem = {"rlx": "relaxed", "rel": "release", "acq": "acquire"}
    events = []
    for t in threads:
        evs = []
        for op in t:
            if op[0] in ("st", "st_reg"):
                value = op[2] if op[0] == "st" else 0
                dep = [f"r{op[2]}"] if op[0] == "st_reg" else None
                if op[3] == "sc":
                    evs.append(ptx_model.F("sc", scope))
                    evs.append(ptx_model.W(op[1], value, "relaxed", scope, dep))
                else:
                    evs.append(ptx_model.W(op[1], value, sem[op[3]], scope, dep))
            elif op[0] == "ld":
                if op[3] == "sc":
                    evs.append(ptx_model.F("sc", scope))
                    evs.append(ptx_model.R(op[2], f"r{op[1]}", "acquire", scope))
                else:
                    evs.append(ptx_model.R(op[2], f"r{op[1]}", sem[op[3]], scope))
            else:
                evs.append(ptx_model.F(op[1], "cta" if op[2] == "block" else "gpu"))
        events.append(evs)
    ctas = [0] * len(threads) if placement == "Same" else list(range(len(threads)))
    out = set()
    for ok, res, _ in ptx_model.Test("t", events, ctas).executions():
        if not ok:
            continue
        parts = []
        for s in shown:
            v = res.get(s, 0) if s[0] == "r" else res.get("final_" + s, 0)
            parts.append(f"{s}={v}")
        out.add(" ".join(parts))
    return out


ORDER = {"rlx": "rlx", "acq": "acq", "rel": "rel", "sc": "sc", "acq_rel": "cuda::std::memory_order_acq_rel"}


def statement(op, block_scope):
    ref = "block_ref" if block_scope else "ref"
    if op[0] == "st":
        return f"{ref}<int>(in.at({LOC[op[1]]})).store({op[2]}, {ORDER[op[3]]});  // {op[1]} = {op[2]}"
    if op[0] == "st_reg":
        return f"{ref}<int>(in.at({LOC[op[1]]})).store(r{op[2]}, {ORDER[op[3]]});  // {op[1]} = r{op[2]}"
    if op[0] == "ld":
        return f"const int r{op[1]} = {ref}<int>(in.at({LOC[op[2]]})).load({ORDER[op[3]]});  // r{op[1]} = {op[2]}"
    scope = "cuda::thread_scope_block" if op[2] == "block" else "cuda::thread_scope_device"
    order = {"sc": "cuda::std::memory_order_seq_cst", "acq_rel": "cuda::std::memory_order_acq_rel"}[op[1]]
    return f"cuda::atomic_thread_fence({order}, {scope});"


def cpp_set(items):
    return "{" + ", ".join(f'"{s}"' for s in sorted(items)) + "}"


def render(name, spec):
    placement, threads, shown, allowed, forbidden, what = spec
    sc = sc_outcomes(threads, shown)
    ptx = ptx_allowed(placement, threads, shown)
    assert sc <= ptx, f"{name}: an interleaving's outcome is not PTX-allowed: {sorted(sc - ptx)}"
    for o in allowed:
        assert o not in sc, f"{name}: allowed weak outcome {o} is an interleaving's"
        assert o in ptx, f"{name}: the checker says {o} is forbidden"
    for o in forbidden:
        assert o not in ptx, f"{name}: the checker says {o} is allowed"
    ident = "t_" + name.replace("+", "p")
    test_var = "k_" + name.replace("+", "p")
    block_scope = placement == "Same"
    lines = [
        f"// Litmus test {name}: {what}.",
        "// Written by tests/litmus/generate.py (edit the table there); verdicts and sources in",
        "// docs/memory-model.md.",
        '#include "litmus.cuh"',
        "",
        "using namespace litmus;",
        "",
        f"__global__ void {ident}(Launch L) {{",
        "  Instance in;",
        "  switch (role_of(L, &in)) {",
    ]
    for i, t in enumerate(threads):
        lines.append(f"    case {i}: {{")
        for op in t:
            lines.append("      " + statement(op, block_scope))
        for op in t:
            if op[0] == "ld":
                lines.append(f"      in.reg[{op[1]}] = r{op[1]};")
        lines.append("      break;")
        lines.append("    }")
    lines += [
        "    default: stress(L);",
        "  }",
        "}",
        "",
        f"static const Test {test_var}{{\"{name}\", {len(threads)}, Placement::{placement}, {ident},",
        "                 {" + ", ".join(f'"{s}"' for s in shown) + "},",
        f"                 /*allowed=*/{cpp_set(allowed)},",
        f"                 /*forbidden=*/{cpp_set(forbidden)},",
        f"                 /*sc_outcomes=*/{cpp_set(sc)},",
        f"                 /*ptx_allowed=*/{cpp_set(ptx)}}};",
        "",
        f"LITMUS_TEST({test_var})",
        "",
    ]
    return "\n".join(lines)


def render_all():
    """all.cu: every test in one program (one compile of the harness and <cuda/atomic> instead of
    one per test); the test suite runs it with --test NAME."""
    lines = [
        "// Every litmus test of this folder in one program: `litmus_all --test NAME [options]` runs",
        "// one of them as its own program would (litmus.cuh), `litmus_all --list` names them. One",
        "// compile instead of one per test. Written by tests/litmus/generate.py.",
        "#define LITMUS_ALL",
    ]
    lines += [f'#include "{n.replace("+", "p")}.cu"' for n in TESTS]
    lines += ["", "int main(int argc, char** argv) { return litmus::run_named(argc, argv); }", ""]
    return "\n".join(lines)


def main():
    check = "--check" in sys.argv[1:]
    only = [a for a in sys.argv[1:] if not a.startswith("--")]
    stale = []
    for name, spec in TESTS.items():
        if only and name not in only:
            continue
        path = os.path.join(HERE, f"{name.replace('+', 'p')}.cu")
        text = render(name, spec)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            if check:
                stale.append(path)
            else:
                with open(path, "w") as f:
                    f.write(text)
    path = os.path.join(HERE, "all.cu")
    text = render_all()
    old = open(path).read() if os.path.exists(path) else None
    if old != text:
        if check:
            stale.append(path)
        else:
            with open(path, "w") as f:
                f.write(text)
    if stale:
        print("out of date with tests/litmus/generate.py (run it):", *stale, sep="\n  ")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
