#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
int main() {
  thrust::device_vector<int> v(100, 1);
  thrust::sort(v.begin(), v.end());
  return thrust::reduce(v.begin(), v.end());
}
