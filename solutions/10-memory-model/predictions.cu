// Lab 10, task 1: predict, for each litmus test, whether its weak outcome is allowed under
// sequential consistency (sc), total store order (tso, the processor consistency of x86) and the
// PTX memory model (ptx). The kernels are in harness.cu; lab10_kernels.cuh lists their threads.
// Every location starts at 0; the weak outcome is the one named in the row.
#include "lab10.h"

namespace lab10 {

// Reference solution: a row for every test of the pool, so that it passes for every student id.
const char* predictions_text() {
  return R"(
# test   weak outcome            sc          tso         ptx
mp       r0=1 r1=0               forbidden   forbidden   allowed
sb       r0=0 r1=0               forbidden   allowed     allowed
lb       r0=1 r1=1               forbidden   forbidden   allowed
iriw     r0=1 r1=0 r2=1 r3=0     forbidden   forbidden   allowed
corr     r0=1 r1=0               forbidden   forbidden   forbidden
2+2w     x=1 y=1                 forbidden   forbidden   allowed
s        r0=1 x=2                forbidden   forbidden   allowed
r        r0=0 y=2                forbidden   allowed     allowed
wrc      r0=1 r1=1 r2=0          forbidden   forbidden   allowed
cowr     r0=2 x=1                forbidden   forbidden   forbidden
corw     r0=2 x=2                forbidden   forbidden   forbidden
)";
}

}  // namespace lab10
