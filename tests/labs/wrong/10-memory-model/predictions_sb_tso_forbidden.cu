// WRONG SOLUTION (lab 10, task 1): store buffering predicted forbidden under TSO, as if a store
// were visible to the other thread before the thread's next load. Under TSO it waits in the store
// buffer while the load goes ahead, so both threads may read 0.
// WRONG-REPLACES: predictions.cu
// WRONG-FAILS: lab10 task1 predict litmus test 2 of 6 under sc tso and ptx
// WRONG-MESSAGE: sb: your tso prediction \(forbidden\) disagrees with total store order
#include "lab10.h"

namespace lab10 {

// Reference solution.
const char* predictions_text() {
  return R"(
# test   weak outcome            sc          tso         ptx
mp       r0=1 r1=0               forbidden   forbidden   allowed
sb       r0=0 r1=0               forbidden   forbidden   allowed
lb       r0=1 r1=1               forbidden   forbidden   allowed
iriw     r0=1 r1=0 r2=1 r3=0     forbidden   forbidden   allowed
corr     r0=1 r1=0               forbidden   forbidden   forbidden
2+2w     x=1 y=1                 forbidden   forbidden   allowed
)";
}

}  // namespace lab10
