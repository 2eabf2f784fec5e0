// Huge pages for the trace model's memory.
//
// Model::open builds per-warp indexes, checkpoints and spans of some 10-24 bytes per event in many
// malloc'd blocks, touched once each as they fill: on a virtual machine the first touch of every
// 4 KiB page is a costly fault. glibc's malloc puts its heap on transparent huge pages when the
// tunable glibc.malloc.hugetlb=1 is set, but it reads its tunables only when a program starts.
// restart_on_huge_pages() therefore starts the program again, once, with that tunable added to
// GLIBC_TUNABLES (bench/results/viz_core.md: a 30-million-event trace opens in about half the
// time). It returns without doing anything when the tunable is already set, when
// SYNCLAB_NO_HUGEPAGES=1, or when the program cannot be started again (then it goes on as it is).
// Call it first in main(), before any thread or output.
#pragma once

namespace synclab::viz {

void restart_on_huge_pages(char** argv);

}  // namespace synclab::viz
