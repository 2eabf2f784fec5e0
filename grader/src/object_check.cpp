#include "object_check.h"

#include <cxxabi.h>
#include <elf.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "elf_object.h"

namespace synclab::grade {

namespace {

// ---- the allow-list of C-named functions and data a student file may use -----------------------
// (C++ names are checked by namespace below; `cuda*` and nvcc's `__cuda*` are allowed by prefix.)
const std::set<std::string> kAllowedC = {
    // synclab-nvcc's <cuda/atomic>: a host atomic_ref at device or block scope tells the race checker
    // (a note that can only make reports against the file itself)
    "synclab_rt_host_atomic_ref",
    // ... and before every host store through an atomic_ref tells it the store's memory order (a
    // relaxed one releases nothing; a forged note can at most hide that, as before the notes)
    "synclab_rt_host_atomic_store",
    // process end (an early exit leaves the test report unfinished: the case fails)
    "exit", "abort", "__assert_fail",
    // memory and strings
    "malloc", "calloc", "realloc", "free", "aligned_alloc", "posix_memalign", "memcpy", "memmove", "memset", "memcmp",
    "memchr", "strlen", "strnlen", "strcmp", "strncmp", "strchr", "strrchr", "strstr", "strcpy", "strncpy", "strcat",
    "strncat", "strdup", "strtol", "strtoul", "strtoll", "strtoull", "strtod", "strtof", "atoi", "atol", "atoll",
    "atof", "abs", "labs", "llabs", "div", "qsort", "bsearch", "rand", "srand", "rand_r", "__errno_location",
    "__ctype_b_loc", "__ctype_tolower_loc", "__ctype_toupper_loc", "tolower", "toupper", "isdigit", "isalpha",
    "isalnum", "isspace", "isupper", "islower", "isprint", "ispunct",
    // formatted output to stdout and stderr
    "printf", "puts", "putchar", "fprintf", "vfprintf", "vprintf", "fputs", "fputc", "putc", "fflush", "fwrite",
    "fwrite_unlocked", "fputs_unlocked", "fputc_unlocked", "putc_unlocked", "putchar_unlocked", "sprintf", "snprintf",
    "vsprintf", "vsnprintf", "stdout", "stderr", "__printf_chk", "__fprintf_chk", "__sprintf_chk", "__snprintf_chk",
    "__vfprintf_chk", "__vprintf_chk", "__vsprintf_chk", "__vsnprintf_chk",
    // fortified memory functions and the stack protector
    "__memcpy_chk", "__memmove_chk", "__memset_chk", "__strcpy_chk", "__strncpy_chk", "__strcat_chk", "__strncat_chk",
    "__stack_chk_fail",
    // time (read only)
    "clock", "time", "clock_gettime",
    // maths
    "sqrt", "sqrtf", "cbrt", "cbrtf", "pow", "powf", "exp", "expf", "exp2", "exp2f", "log", "logf", "log2", "log2f",
    "log10", "log10f", "floor", "floorf", "ceil", "ceilf", "fabs", "fabsf", "fmin", "fminf", "fmax", "fmaxf", "fmod",
    "fmodf", "round", "roundf", "lround", "lroundf", "llround", "llroundf", "trunc", "truncf", "sin", "sinf", "cos",
    "cosf", "tan", "tanf", "asin", "asinf", "acos", "acosf", "atan", "atanf", "atan2", "atan2f", "sinh", "cosh", "tanh",
    "hypot", "hypotf", "frexp", "ldexp", "modf", "nan", "nanf",
    // the C++ runtime
    "__cxa_guard_acquire", "__cxa_guard_release", "__cxa_guard_abort", "__cxa_begin_catch", "__cxa_end_catch",
    "__cxa_rethrow", "__cxa_throw", "__cxa_allocate_exception", "__cxa_free_exception", "__cxa_pure_virtual",
    "__cxa_deleted_virtual", "__cxa_bad_cast", "__cxa_bad_typeid", "__cxa_get_exception_ptr", "__gxx_personality_v0",
    "_Unwind_Resume", "__tls_get_addr", "_GLOBAL_OFFSET_TABLE_",
    // allowed only where the compiler puts them (checked below)
    "atexit", "__cxa_atexit", "__dso_handle"};

// Parts of mangled C++ names a student file may not refer to: threads, files and the filesystem,
// handlers that run later, and the test framework's and SyncLab's own functions (the control API
// that switches the checkers off, the speed-case timer).
const std::vector<std::pair<std::string, std::string>> kDeniedCxx = {{"St6thread", "std::thread"},
                                                                     {"St7jthread", "std::jthread"},
                                                                     {"St11this_thread", "std::this_thread"},
                                                                     {"10filesystem", "std::filesystem"},
                                                                     {"filebuf", "file streams"},
                                                                     {"fstream", "file streams"},
                                                                     {"__basic_file", "file streams"},
                                                                     {"set_terminate", "std::set_terminate"},
                                                                     {"set_unexpected", "std::set_unexpected"},
                                                                     {"set_new_handler", "std::set_new_handler"},
                                                                     {"5Catch", "Catch2's internals"},
                                                                     {"7synclab", "SyncLab's own functions"}};

// C-named data a student file may not define (the C library's: defining one replaces it).
// The extern "C" inline functions of CUDA's math headers that host code can call (and so define,
// weak): int, unsigned, long long and unsigned long long min and max.
const std::set<std::string> kCudaHeaderInline = {"min", "max", "umin", "umax", "llmin", "llmax", "ullmin", "ullmax"};

const std::set<std::string> kReservedData = {"stdin",
                                             "stdout",
                                             "stderr",
                                             "environ",
                                             "__environ",
                                             "optarg",
                                             "optind",
                                             "opterr",
                                             "optopt",
                                             "program_invocation_name",
                                             "program_invocation_short_name",
                                             "__progname",
                                             "__progname_full",
                                             "daylight",
                                             "timezone",
                                             "tzname",
                                             "signgam",
                                             "errno"};

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// A C++ name as people read it (shortened when long); other names as they are.
std::string readable(const std::string& name) {
  std::string out = name;
  if (starts_with(name, "_Z")) {
    int status = 0;
    char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
    if (status == 0 && d) out = d;
    std::free(d);
  }
  if (out.size() > 110) out = out.substr(0, 100) + "...";
  return out;
}

std::string demangled_hint(const std::string& name) {
  // Keep names readable without a demangler: say which family matched.
  for (const auto& [frag, what] : kDeniedCxx)
    if (name.find(frag) != std::string::npos) return what;
  return {};
}

bool is_nvcc_registration(const std::string& fn) { return fn.find("__sti____cudaRegisterAll") != std::string::npos; }
bool is_static_init(const std::string& fn) {
  return starts_with(fn, "_GLOBAL__sub_I_") || fn.find("__static_initialization_and_destruction") != std::string::npos;
}

// The iostream initialisation (a static std::ios_base::Init per file that includes <iostream>).
const std::set<std::string> kStaticInitTargets = {"_ZNSt8ios_base4InitC1Ev", "_ZNSt8ios_base4InitD1Ev", "__cxa_atexit",
                                                  "__dso_handle"};

struct Disassembly {
  // function name -> names it refers to in <...> (without +offsets)
  std::map<std::string, std::set<std::string>> refs;
  std::vector<std::string> raw_syscalls;  // "function: instruction"
};

Disassembly parse_disassembly(const std::string& text) {
  Disassembly d;
  static const std::regex header(R"(^[0-9a-f]+ <(.+)>:\s*$)");
  static const std::regex insn(R"(^\s*[0-9a-f]+:\s+(.*)$)");
  static const std::regex ref(R"(<([^>+]+)(\+0x[0-9a-f]+)?>)");
  static const std::regex syscall(R"(^(syscall|sysenter|int\s+\$0x80)\b)");
  std::istringstream in(text);
  std::string line, fn;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      fn = m[1].str();
      d.refs[fn];
      continue;
    }
    if (!std::regex_match(line, m, insn)) continue;
    std::string ins = m[1].str();
    if (std::regex_search(ins, syscall)) d.raw_syscalls.push_back(fn + ": " + ins);
    for (std::sregex_iterator r(ins.begin(), ins.end(), ref), e; r != e; ++r) d.refs[fn].insert((*r)[1].str());
  }
  return d;
}

}  // namespace

ObjectCheck check_student_object(const std::string& object, const std::string& disassembly) {
  ObjectCheck out;
  ElfObject o;
  if (!read_elf_object(object, o, out.error)) return out;
  std::set<std::string> problems;  // (sorted, each once)
  auto problem = [&](std::string p) { problems.insert(std::move(p)); };

  // 1. What it calls or reads from elsewhere (C++ names: once per family, with one example).
  std::map<std::string, std::string> families;
  for (const auto& s : o.symbols) {
    if (!s.undefined() || s.name.empty() || s.binding == STB_LOCAL) continue;
    const std::string& n = s.name;
    if (starts_with(n, "_Z")) {
      std::string what = demangled_hint(n);
      if (!what.empty() && !families.count(what)) families[what] = n;
    } else if (!kAllowedC.count(n) && !starts_with(n, "__cuda") && !std::regex_match(n, std::regex("cuda[A-Z].*"))) {
      problem(fmt::format("calls {}, which student files may not use", n));
    }
  }

  for (const auto& [what, n] : families) problem(fmt::format("uses {} ({})", what, readable(n)));

  // 2. What it defines for everybody.
  for (const auto& s : o.symbols) {
    if (s.undefined() || s.name.empty() || s.binding == STB_LOCAL || s.type == STT_SECTION || s.type == STT_FILE)
      continue;
    const std::string& n = s.name;
    const bool strong = s.binding == STB_GLOBAL;
    if (starts_with(n, "_Z")) {
      if (n.find("5Catch") != std::string::npos) {
        problem(fmt::format("defines {}, a name of Catch2's", readable(n)));
      } else if (strong &&
                 (starts_with(n, "_ZNSt") || starts_with(n, "_ZNKSt") || starts_with(n, "_ZSt") ||
                  starts_with(n, "_ZN9__gnu_cxx") || starts_with(n, "_ZN7synclab") || starts_with(n, "_ZNK7synclab"))) {
        problem(fmt::format("defines {}, a function of the C++ library or of SyncLab, replacing it", readable(n)));
      } else if (strong && (starts_with(n, "_Znw") || starts_with(n, "_Zna") || starts_with(n, "_Zdl") ||
                            starts_with(n, "_Zda"))) {
        problem(fmt::format("defines the global operator new or delete ({})", readable(n)));
      }
    } else if (starts_with(n, "DW.ref.")) {
      // the exception-handling personality reference the compiler adds
    } else if (s.binding == STB_WEAK && s.type == STT_FUNC && kCudaHeaderInline.count(n)) {
      // min/max of CUDA's headers, extern "C" inline: host code that calls them defines them weak.
      // The graded programs link the tests and the harness first, so a weak definition here can
      // replace none of theirs (the linker keeps the first one it meets).
    } else if (s.type == STT_OBJECT && !kReservedData.count(n) && n[0] != '_') {
      // a global variable (e.g. a __device__ variable's host shadow)
    } else if (s.type == STT_OBJECT) {
      problem(fmt::format("defines the global variable {}, a name of the C library's", n));
    } else {
      problem(
          fmt::format("defines the C-linkage function {} (extern \"C\", or an assembler label), which could "
                      "replace a function of the C library: give it C++ linkage inside a namespace",
                      n));
    }
  }

  // Data where code runs (an array of machine code placed in an executable section).
  for (const auto& s : o.symbols)
    if (s.type == STT_OBJECT && o.in_code(s))
      problem(
          fmt::format("places data ({}) in the executable section {}", readable(s.name), o.sections[s.section].name));

  // 3. Code that runs before main or at exit.
  for (size_t i = 0; i < o.sections.size(); ++i) {
    const ElfSection& sec = o.sections[i];
    if (sec.type == SHT_FINI_ARRAY || sec.type == SHT_PREINIT_ARRAY || starts_with(sec.name, ".fini_array") ||
        starts_with(sec.name, ".preinit_array") || starts_with(sec.name, ".ctors") || starts_with(sec.name, ".dtors"))
      problem(fmt::format("has a {} section: functions that run before main or at exit", sec.name));
  }
  auto static_object = [&](const std::string& callee) {
    problem(
        fmt::format("has a global or static object that needs construction or destruction (it calls {}); use "
                    "constants, or values computed inside the functions",
                    readable(callee)));
  };
  auto function_name = [&](const ElfRelocation& r) -> std::string {
    const ElfSymbol& y = o.symbols[r.symbol];
    if (y.type == STT_SECTION) {
      const ElfSymbol* f = o.function_at(y.section, uint64_t(r.addend));
      return f ? f->name : o.describe(r);
    }
    return y.name;
  };
  for (const auto& r : o.relocations) {
    const ElfSection& patched = o.sections[r.section];
    if (patched.type == SHT_INIT_ARRAY || starts_with(patched.name, ".init_array")) {
      std::string fn = function_name(r);
      if (!is_nvcc_registration(fn) && !is_static_init(fn))
        problem(fmt::format("runs {} before main (a constructor function)", readable(fn)));
      continue;
    }
    if (!patched.executable()) continue;
    const ElfSymbol* where = o.function_at(r.section, r.offset);
    const std::string fn = where ? where->name : patched.name;
    const ElfSymbol& y = o.symbols[r.symbol];
    const std::string target = y.type == STT_SECTION ? o.describe(r) : y.name;
    if (target == "atexit" && !is_nvcc_registration(fn)) {
      problem(fmt::format("registers a function to run at exit (atexit, in {})", readable(fn)));
    } else if ((target == "__cxa_atexit" || target == "__dso_handle") && !is_static_init(fn)) {
      problem(
          fmt::format("has a static object with a destructor inside a function ({}); compute the value "
                      "where it is needed instead",
                      readable(fn)));
    } else if (is_static_init(fn)) {
      const bool data = (y.type == STT_SECTION || y.type == STT_OBJECT || y.type == STT_NOTYPE) && o.in_data(y);
      if (!data && !kStaticInitTargets.count(target) && !is_static_init(target)) static_object(target);
    }
  }
  // The static initialisation may call only itself and the iostream initialisation, also through
  // calls that need no relocation (to functions of the same section).
  const Disassembly d = parse_disassembly(disassembly);
  for (const auto& [fn, refs] : d.refs) {
    if (!is_static_init(fn)) continue;
    for (const auto& t : refs) {
      if (t == fn || is_static_init(t) || kStaticInitTargets.count(t)) continue;
      bool data = false;
      for (const auto& y : o.symbols) data = data || (y.name == t && o.in_data(y));
      if (!data) static_object(t);
    }
  }
  for (const auto& s : d.raw_syscalls) problem(fmt::format("makes raw system calls ({})", s));

  out.problems.assign(problems.begin(), problems.end());
  return out;
}

}  // namespace synclab::grade
