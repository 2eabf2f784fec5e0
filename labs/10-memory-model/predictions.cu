// Lab 10, task 1: predict, for each litmus test, whether its weak outcome is allowed under
// sequential consistency (sc), total store order (tso, the processor consistency of x86) and the
// PTX memory model (ptx). The kernels are in harness.cu; lab10_kernels.cuh lists their threads.
// Every location starts at 0; the weak outcome is the one named in the row.
#include "lab10.h"

namespace lab10 {

// TODO(1): replace each "?" with "allowed" or "forbidden" (18 words). Lines starting with # and
// text after # are comments; keep one row per test and the verdicts in the order sc, tso, ptx.
// These are the six tests without a student id. With one (SYNCLAB_STUDENT, README "Your own six
// tests"), `lab10 predict` names your six and prints the rows this table lacks: add them.
const char* predictions_text() {
  return R"(
# test   weak outcome            sc          tso         ptx
mp       r0=1 r1=0               ?           ?           ?
sb       r0=0 r1=0               ?           ?           ?
lb       r0=1 r1=1               ?           ?           ?
iriw     r0=1 r1=0 r2=1 r3=0     ?           ?           ?
corr     r0=1 r1=0               ?           ?           ?
2+2w     x=1 y=1                 ?           ?           ?
)";
}

}  // namespace lab10
