#include "sim/runtime/error_state.h"

#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_map>

namespace synclab::rt {

namespace {

thread_local cudaError_t t_last_error = cudaSuccess;
std::atomic<int> g_sticky{cudaSuccess};
std::atomic<int> g_async{cudaSuccess};

struct CodeName {
  int code;
  const char* name;
};
constexpr CodeName kNames[] = {
#include "sim/runtime/error_names.inc"
};

// cudaGetErrorString's text for the codes simcudart returns (and a few more a course meets).
struct CodeText {
  int code;
  const char* text;
};
constexpr CodeText kTexts[] = {
    {0, "no error"},
    {1, "invalid argument"},
    {2, "out of memory"},
    {3, "initialization error"},
    {4, "driver shutting down"},
    {9, "invalid configuration argument"},
    {12, "invalid pitch argument"},
    {13, "invalid device symbol"},
    {17, "invalid device pointer"},
    {21, "invalid copy direction for memcpy"},
    {35, "CUDA driver version is insufficient for CUDA runtime version"},
    {36, "cannot set while device is active in this process"},
    {52, "__global__ function call is not configured"},
    {98, "invalid device function"},
    {100, "no CUDA-capable device is detected"},
    {101, "invalid device ordinal"},
    {200, "device kernel image is invalid"},
    {209, "no kernel image is available for execution on the device"},
    {218, "a PTX JIT compilation failed"},
    {222, "the provided PTX was compiled with an unsupported toolchain."},
    {400, "invalid resource handle"},
    {401, "the operation cannot be performed in the present state"},
    {500, "named symbol not found"},
    {600, "device not ready"},
    {700, "an illegal memory access was encountered"},
    {701, "too many resources requested for launch"},
    {702, "the launch timed out and was terminated"},
    {710, "device-side assert triggered"},
    {712, "part or all of the requested memory range is already mapped"},
    {713, "pointer does not correspond to a registered memory region"},
    {714, "hardware stack error"},
    {715, "an illegal instruction was encountered"},
    {716, "misaligned address"},
    {717, "operation not supported on global/shared address space"},
    {718, "invalid program counter"},
    {719, "unspecified launch failure"},
    {720, "too many blocks in cooperative launch"},
    {800, "operation not permitted"},
    {801, "operation not supported"},
    {999, "unknown error"},
};

// For the codes without a text of ours: "cudaErrorStreamCaptureUnsupported" ->
// "stream capture unsupported".
const std::string& derived_text(int code, const char* name) {
  static std::mutex mutex;
  static std::unordered_map<int, std::string> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(code);
  if (it != cache.end()) return it->second;
  std::string s = name;
  const std::string prefix = "cudaError";
  if (s.rfind(prefix, 0) == 0) s = s.substr(prefix.size());
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool upper = std::isupper(static_cast<unsigned char>(c));
    bool next_lower = i + 1 < s.size() && std::islower(static_cast<unsigned char>(s[i + 1]));
    bool prev_lower = i > 0 && std::islower(static_cast<unsigned char>(s[i - 1]));
    if (i > 0 && upper && (prev_lower || next_lower)) out += ' ';
    out += (upper && (next_lower || i + 1 == s.size() || prev_lower)) ? char(std::tolower(c)) : c;
  }
  return cache.emplace(code, out).first->second;
}

}  // namespace

cudaError_t set_error(cudaError_t err) {
  if (err != cudaSuccess) t_last_error = err;
  return err;
}

bool quiet() {
  static const bool q = [] {
    const char* v = std::getenv("SYNCLAB_QUIET");
    return v && *v && std::string(v) != "0";
  }();
  return q;
}

void diag(const std::string& line) {
  if (quiet()) return;
  std::fprintf(stderr, "simcudart: %s\n", line.c_str());
  std::fflush(stderr);
}

cudaError_t fail(const char* api, cudaError_t err, const std::string& message) {
  diag(std::string(api) + ": " + message + " (returns " + (error_name(err) ? error_name(err) : "?") + ")");
  return set_error(err);
}

cudaError_t sticky_error() { return static_cast<cudaError_t>(g_sticky.load(std::memory_order_acquire)); }

void set_sticky_error(cudaError_t err) {
  int expected = cudaSuccess;
  g_sticky.compare_exchange_strong(expected, err, std::memory_order_acq_rel);
}

cudaError_t check_sticky() {
  cudaError_t s = sticky_error();
  if (s != cudaSuccess) t_last_error = s;
  return s;
}

void post_async_error(cudaError_t err) {
  int expected = cudaSuccess;
  g_async.compare_exchange_strong(expected, err, std::memory_order_acq_rel);
}

cudaError_t take_async_error() {
  return static_cast<cudaError_t>(g_async.exchange(cudaSuccess, std::memory_order_acq_rel));
}

cudaError_t last_error(bool reset) {
  // As on CUDA 13 (measured on an H200, driver 580): the last error is what the calls of this
  // thread returned. A kernel fault reaches it only through a call that returned the sticky
  // error (a synchronize, a copy, a launch...), and reading it clears it even then.
  cudaError_t e = t_last_error;
  if (e == cudaSuccess) {
    e = reset ? take_async_error() : static_cast<cudaError_t>(g_async.load(std::memory_order_acquire));
  }
  if (reset) t_last_error = cudaSuccess;
  return e;
}

void clear_errors() {
  g_sticky.store(cudaSuccess, std::memory_order_release);
  g_async.store(cudaSuccess, std::memory_order_release);
  t_last_error = cudaSuccess;
}

cudaError_t sync_status() {
  cudaError_t s = sticky_error();
  if (s == cudaSuccess) s = take_async_error();
  return set_error(s);
}

const char* error_name(int code) {
  for (const auto& n : kNames)
    if (n.code == code) return n.name;
  return nullptr;
}

const char* error_string(int code) {
  for (const auto& t : kTexts)
    if (t.code == code) return t.text;
  if (const char* name = error_name(code)) return derived_text(code, name).c_str();
  return nullptr;
}

}  // namespace synclab::rt
