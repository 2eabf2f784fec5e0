// The host half of a student's .cu file, as nvcc's front end leaves it (the .cudafe1.cpp file that
// `--keep` keeps: preprocessed, macros expanded, device code inside `#if 0`): a student file's host
// code may not contain assembly (asm statements or top-level asm) nor attributes that place code or
// data where the program would run it (section, naked, ifunc, alias, symver). Device code may use
// inline PTX (asm in a __device__ or __global__ function): that is inside `#if 0` here.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace synclab::grade {

// `is_student(file)`: whether a file named by a line marker is one of the student's files; only
// their lines are checked (the system headers declare functions with asm labels). Returns one
// line per problem: "histogram.cu:12: assembly in host code".
std::vector<std::string> check_host_source(const std::string& cudafe,
                                           const std::function<bool(const std::string&)>& is_student);

}  // namespace synclab::grade
