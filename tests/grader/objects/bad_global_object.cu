// expect: needs construction or destruction
#include <vector>
std::vector<int> table = {1, 2, 3};
__global__ void k(int* p) { *p = 1; }
int first() { return table[0]; }
