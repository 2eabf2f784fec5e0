// What a student's compiled file may contain. A student file computes, launches kernels and
// prints; it is linked into the program that runs the graded tests, so anything more (reaching the
// operating system, replacing a function of the C library or of the tests, running code before
// main or after it) could act on the grading itself. The check reads the object the compiler
// made from the student's file:
//   - the functions it calls must be on an allow-list (the CUDA runtime, memory, strings,
//     formatted printing, maths, the C++ library except threads, files and the filesystem);
//   - the global names it defines must not replace the C library's, the C++ library's, Catch2's or
//     SyncLab's, nor the global operator new/delete;
//   - nothing may run before main or at exit but the CUDA registration nvcc generates and the
//     iostream initialisation the C++ library needs: no constructor functions, no global or
//     static objects that need construction or destruction, no atexit handlers;
//   - no raw system-call instructions.
#pragma once

#include <string>
#include <vector>

namespace synclab::grade {

struct ObjectCheck {
  std::string error;                  // the object could not be read or disassembled
  std::vector<std::string> problems;  // one line each: what the file does that it may not
};

// `disassembly`: `objdump -d -w --no-show-raw-insn OBJECT` (for the calls made before main and for
// raw system calls); the caller runs it, sandboxed.
ObjectCheck check_student_object(const std::string& object, const std::string& disassembly);

}  // namespace synclab::grade
