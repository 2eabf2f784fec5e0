// conformance.h - the one shared helper header of the SyncLab simulator conformance corpus.
//
// Every program in tests/conformance/ is an ordinary CUDA program; this header gives it
//   CHECK(call)      : check a CUDA runtime call; on error print file:line, the error and FAIL, exit 1
//   CHECK_KERNEL()   : cudaGetLastError + cudaDeviceSynchronize, both checked
//   conf::Checker    : compares results with the host reference, prints the first 10 mismatches
//                      (index, expected, got) and ends the program with PASS name / FAIL name
//   conf::Rng        : a small deterministic generator for test inputs
// The test name is the source file's base name without ".cu" (e.g. 001_int_arith).
// Host-only code: nothing here runs on the device.
#pragma once

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

namespace conf {

inline const char* test_name_from(const char* path) {
    static char buf[256];
    const char* base = std::strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = std::strlen(base);
    const char* dot = std::strrchr(base, '.');
    if (dot) n = (size_t)(dot - base);
    if (n >= sizeof buf) n = sizeof buf - 1;
    std::memcpy(buf, base, n);
    buf[n] = '\0';
    return buf;
}

}  // namespace conf

#define CONF_TEST_NAME (conf::test_name_from(__FILE__))

#define CHECK(call)                                                                          \
    do {                                                                                     \
        cudaError_t conf_err_ = (call);                                                      \
        if (conf_err_ != cudaSuccess) {                                                      \
            std::printf("%s:%d: CUDA error %s: %s (in %s)\n", __FILE__, __LINE__,            \
                        cudaGetErrorName(conf_err_), cudaGetErrorString(conf_err_), #call);  \
            std::printf("FAIL %s\n", CONF_TEST_NAME);                                        \
            std::fflush(stdout);                                                             \
            std::exit(1);                                                                    \
        }                                                                                    \
    } while (0)

#define CHECK_KERNEL()                       \
    do {                                     \
        CHECK(cudaGetLastError());           \
        CHECK(cudaDeviceSynchronize());      \
    } while (0)

namespace conf {

template <class T> struct ident { using type = T; };

// Formats one value for a mismatch message.
inline void format_value(char* out, size_t n, bool v) { std::snprintf(out, n, "%s", v ? "true" : "false"); }
inline void format_value(char* out, size_t n, float v) {
    uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(out, n, "%.9g (0x%08x)", (double)v, bits);
}
inline void format_value(char* out, size_t n, double v) {
    unsigned long long bits;
    std::memcpy(&bits, &v, sizeof bits);
    std::snprintf(out, n, "%.17g (0x%016llx)", v, bits);
}
template <class T>
inline typename std::enable_if<std::is_integral<T>::value && std::is_signed<T>::value>::type
format_value(char* out, size_t n, T v) {
    std::snprintf(out, n, "%lld", (long long)v);
}
template <class T>
inline typename std::enable_if<std::is_integral<T>::value && !std::is_signed<T>::value>::type
format_value(char* out, size_t n, T v) {
    std::snprintf(out, n, "%llu (0x%llx)", (unsigned long long)v, (unsigned long long)v);
}

template <class T> inline bool same_value(T a, T b) { return a == b; }
// Floating point: equal bit patterns, or both NaN (+0 and -0 are different).
inline bool same_value(float a, float b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
}
inline bool same_value(double a, double b) {
    if (std::isnan(a) && std::isnan(b)) return true;
    return std::memcmp(&a, &b, sizeof a) == 0;
}

class Checker {
public:
    explicit Checker(const char* name) : name_(name) {}

    // Exact comparison (floating point: bit-exact, any NaN equals any NaN).
    template <class T>
    bool eq(const char* what, long long idx, T expected, typename ident<T>::type got) {
        ++checks_;
        if (same_value(expected, got)) return true;
        char e[96], g[96];
        format_value(e, sizeof e, expected);
        format_value(g, sizeof g, got);
        mismatch("%s[%lld]: expected %s, got %s", what, idx, e, g);
        return false;
    }

    // Tolerance comparison: |expected - got| <= abs_tol + rel_tol * |expected|.
    bool near(const char* what, long long idx, double expected, double got, double abs_tol, double rel_tol) {
        ++checks_;
        bool ok;
        if (std::isnan(expected) || std::isnan(got)) ok = std::isnan(expected) && std::isnan(got);
        else if (std::isinf(expected) || std::isinf(got)) ok = expected == got;
        else ok = std::fabs(expected - got) <= abs_tol + rel_tol * std::fabs(expected);
        if (ok) return true;
        mismatch("%s[%lld]: expected %.17g, got %.17g (abs tol %g, rel tol %g)", what, idx, expected, got,
                 abs_tol, rel_tol);
        return false;
    }

    // A general condition; the message is printf-style.
    bool check(bool ok, const char* fmt, ...) {
        ++checks_;
        if (ok) return true;
        ++fails_;
        if (fails_ <= kMaxPrinted) {
            std::printf("MISMATCH ");
            va_list ap;
            va_start(ap, fmt);
            std::vprintf(fmt, ap);
            va_end(ap);
            std::printf("\n");
        }
        return false;
    }

    int fails() const { return fails_; }

    // Prints the final line and returns the process exit code.
    int finish() {
        if (checks_ == 0) {
            std::printf("no checks were made\n");
            ++fails_;
        }
        if (fails_ > kMaxPrinted) std::printf("... %d mismatches in all (first %d shown)\n", fails_, kMaxPrinted);
        std::printf("%s %s\n", fails_ == 0 ? "PASS" : "FAIL", name_);
        std::fflush(stdout);
        return fails_ == 0 ? 0 : 1;
    }

private:
    static constexpr int kMaxPrinted = 10;
    void mismatch(const char* fmt, ...) {
        ++fails_;
        if (fails_ > kMaxPrinted) return;
        std::printf("MISMATCH ");
        va_list ap;
        va_start(ap, fmt);
        std::vprintf(fmt, ap);
        va_end(ap);
        std::printf("\n");
    }
    const char* name_;
    int fails_ = 0;
    long long checks_ = 0;
};

// Deterministic xorshift64* generator for inputs (same sequence on every machine).
class Rng {
public:
    explicit Rng(unsigned long long seed) : s_(seed ? seed : 0x9e3779b97f4a7c15ULL) {}
    unsigned long long next_u64() {
        s_ ^= s_ >> 12;
        s_ ^= s_ << 25;
        s_ ^= s_ >> 27;
        return s_ * 0x2545F4914F6CDD1DULL;
    }
    unsigned next_u32() { return (unsigned)(next_u64() >> 32); }
    int next_int(int lo, int hi) {  // inclusive range
        return lo + (int)(next_u64() % (unsigned long long)((long long)hi - lo + 1));
    }
    float next_float(float lo, float hi) {  // uniform in [lo, hi)
        return lo + (hi - lo) * (float)((next_u64() >> 40) * (1.0 / 16777216.0));
    }
    double next_double(double lo, double hi) {
        return lo + (hi - lo) * ((next_u64() >> 11) * (1.0 / 9007199254740992.0));
    }

private:
    unsigned long long s_;
};

}  // namespace conf
