// Instruction semantics, built-in functions: device printf (vprintf), __assertfail, malloc and free.

#include <fmt/format.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstring>

#include "sim/exec/convert.h"
#include "sim/exec/instr/operands.h"
#include "sim/exec/values.h"

namespace synclab::sim {

using namespace instr;

std::string KernelRun::read_cstring(Warp& w, int lane, uint64_t addr, const ptx::Instr& I) {
  std::string s;
  for (int i = 0; i < 4096; ++i) {
    char c = 0;
    if (!load_bytes(w, lane, Space::Generic, addr + i, &c, 1, I)) return s;
    if (c == 0) break;
    s.push_back(c);
  }
  return s;
}

int KernelRun::do_vprintf(Warp& w, int lane, uint64_t fmt_addr, uint64_t args, const ptx::Instr& I) {
  if (fmt_addr == 0) return -1;
  std::string f = read_cstring(w, lane, fmt_addr, I);
  if (stop_) return -2;
  int nargs = 0;
  std::string out;
  uint64_t off = 0;
  auto take = [&](uint32_t size, uint64_t* v) {
    off = (off + size - 1) / size * size;
    *v = 0;
    bool ok = args != 0 && load_bytes(w, lane, Space::Generic, args + off, v, size, I);
    off += size;
    ++nargs;
    return ok;
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      out.push_back(f[i]);
      continue;
    }
    size_t j = i + 1;
    if (j < f.size() && f[j] == '%') {
      out.push_back('%');
      i = j;
      continue;
    }
    std::string spec = "%";
    while (j < f.size() && std::strchr("-+ #0123456789.*", f[j])) spec.push_back(f[j++]);
    std::string len;
    while (j < f.size() && std::strchr("hlLqjzt", f[j])) len.push_back(f[j++]);
    if (j >= f.size()) break;
    char conv = f[j];
    i = j;
    char buf[512];
    uint64_t v = 0;
    switch (conv) {
      case 'd':
      case 'i':
      case 'u':
      case 'x':
      case 'X':
      case 'o':
      case 'c': {
        const bool wide = len == "l" || len == "ll" || len == "j" || len == "z" || len == "t" || len == "q";
        if (!take(wide ? 8 : 4, &v)) return -2;
        std::string s = spec + (wide ? "ll" : "") + conv;
        if (conv == 'd' || conv == 'i') {
          if (wide)
            std::snprintf(buf, sizeof buf, s.c_str(), static_cast<long long>(v));
          else
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<int>(static_cast<int32_t>(v)));
        } else if (conv == 'c') {
          std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<int>(v & 0xff));
        } else {
          if (wide)
            std::snprintf(buf, sizeof buf, s.c_str(), static_cast<unsigned long long>(v));
          else
            std::snprintf(buf, sizeof buf, (spec + conv).c_str(), static_cast<unsigned>(v));
        }
        out += buf;
        break;
      }
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        if (!take(8, &v)) return -2;
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), from_bits<double>(v));
        out += buf;
        break;
      }
      case 'p': {
        if (!take(8, &v)) return -2;
        std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
        out += buf;
        break;
      }
      case 's': {
        if (!take(8, &v)) return -2;
        std::string s = v ? read_cstring(w, lane, v, I) : std::string("(null)");
        if (stop_) return -2;
        std::snprintf(buf, sizeof buf, (spec + 's').c_str(), s.c_str());
        out += buf;
        break;
      }
      default: out += spec + len + conv; break;
    }
  }
  sim_.emit_printf(out);
  return nargs;
}

void KernelRun::do_assertfail(Warp& w, int lane, uint64_t msg, uint64_t file, uint32_t line, uint64_t func,
                              const ptx::Instr& I) {
  std::string m = read_cstring(w, lane, msg, I);
  std::string f = read_cstring(w, lane, file, I);
  std::string fn = read_cstring(w, lane, func, I);
  if (stop_) return;
  const Lane& L = w.lanes[lane];
  const Cta& c = *w.cta;
  fault(w, lane, I, LaunchStatus::Assert, fmt::format("device assertion failed: {}", m),
        fmt::format("{}:{}: {}: block [{},{},{}], thread [{},{},{}]: Assertion `{}` failed.", f, line, fn, c.ctaid[0],
                    c.ctaid[1], c.ctaid[2], L.tid[0], L.tid[1], L.tid[2], m));
}

void KernelRun::exec_builtin_call(Warp& w, uint32_t act, const ptx::Function& caller, const ptx::Function& callee,
                                  const ptx::CallSite& cs, const ptx::Instr& I) {
  // Arguments of a call live in the caller's param frame (call-sequence .param variables).
  auto arg = [&](int lane, size_t i, uint32_t size) -> uint64_t {
    if (i >= cs.arg_ops.size()) return 0;
    const Operand& o = cs.arg_ops[i];
    if (o.kind == Operand::Kind::Symbol || o.kind == Operand::Kind::Addr) {
      uint64_t v = 0;
      uint8_t* p = param_ptr(w, lane, caller, o, size, I);
      if (p) std::memcpy(&v, p, size);
      return v;
    }
    return operand(w, lane, o);
  };
  auto set_ret = [&](int lane, uint64_t v, uint32_t size) {
    if (cs.rets.empty()) return;
    const ptx::Symbol& s = M_.symbols[cs.rets[0]];
    Operand o;
    o.kind = Operand::Kind::Addr;
    o.imm = static_cast<int64_t>(s.offset);
    o.base = Operand::Base::ParamFrame;  // call-sequence params live in the caller's frame
    uint8_t* p = param_ptr(w, lane, caller, o, size, I);
    if (p) std::memcpy(p, &v, size);
  };
  const std::string& name = callee.name;
  if (name == "vprintf") {
    FOR_LANES(act)
    int n = do_vprintf(w, lane, arg(lane, 0, 8), arg(lane, 1, 8), I);
    if (stop_) return;
    set_ret(lane, static_cast<uint32_t>(n), 4);
    END_LANES
    return;
  }
  if (name == "__assertfail") {
    FOR_LANES(act)
    do_assertfail(w, lane, arg(lane, 0, 8), arg(lane, 1, 8), uint32_t(arg(lane, 2, 4)), arg(lane, 3, 8), I);
    return;
    END_LANES
    return;
  }
  if (name == "malloc") {
    FOR_LANES(act)
    uint64_t size = arg(lane, 0, 8);
    void* p = size ? sim_.memory().allocate(size, AllocKind::Device, "device malloc") : nullptr;
    set_ret(lane, reinterpret_cast<uint64_t>(p), 8);
    END_LANES
    return;
  }
  if (name == "free") {
    FOR_LANES(act)
    uint64_t p = arg(lane, 0, 8);
    if (p && !sim_.memory().release(reinterpret_cast<void*>(p))) {
      fault(w, lane, I, LaunchStatus::Fault, "invalid free in device code",
            fmt::format("free(0x{:x}) of memory not allocated by device malloc (or freed twice)", p));
      return;
    }
    END_LANES
    return;
  }
  int lane = __builtin_ctz(act);
  fault(w, lane, I, LaunchStatus::Fault, fmt::format("call of undefined device function '{}'", name),
        "the function is declared .extern in the PTX but is not built into the simulator; "
        "build all device code into one program (or with -rdc and link it together)");
}

}  // namespace synclab::sim
