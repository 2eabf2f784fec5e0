#include "sim/runtime/launch_site.h"

#include <dlfcn.h>
#include <elf.h>
#include <execinfo.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>

#include <fmt/format.h>

namespace synclab::rt {

LaunchSite capture_launch_site() {
  void* buf[24];
  const int n = backtrace(buf, 24);
  LaunchSite s;
  if (n > 0) s.frames.assign(buf, buf + n);
  return s;
}

namespace {

// True when the ELF object at path is position-dependent (addresses are absolute).
bool fixed_address(const char* path) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  Elf64_Ehdr h{};
  const bool ok = std::fread(&h, sizeof h, 1, f) == 1;
  std::fclose(f);
  return ok && std::memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 && h.e_type == ET_EXEC;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

struct Named {
  std::string function, location;  // location "" when unknown
};

// addr2line on several addresses of one object: one (function, file:line) pair each.
std::vector<Named> addr2line(const std::string& object, const std::vector<uintptr_t>& addresses) {
  std::string cmd = "addr2line -C -f -e " + shell_quote(object);
  for (uintptr_t a : addresses) cmd += fmt::format(" {:#x}", a);
  cmd += " 2>/dev/null";
  std::vector<Named> out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[4096];
  std::vector<std::string> lines;
  while (std::fgets(line, sizeof line, p)) {
    std::string l = line;
    while (!l.empty() && (l.back() == '\n' || l.back() == '\r')) l.pop_back();
    lines.push_back(l);
  }
  pclose(p);
  for (size_t i = 0; i + 1 < lines.size(); i += 2) {
    Named n{lines[i] == "??" ? "" : lines[i], lines[i + 1]};
    // "file:line (discriminator N)" -> "file:line"; "??:0" or "??:?" -> unknown.
    if (const size_t d = n.location.find(" (discriminator"); d != std::string::npos) n.location.resize(d);
    if (n.location.rfind("??", 0) == 0 || n.location.size() < 3 || n.location.substr(n.location.size() - 2) == ":0" ||
        n.location.back() == '?')
      n.location.clear();
    out.push_back(std::move(n));
  }
  return out;
}

// Frames that are not the launch as the student wrote it.
bool plumbing(const Named& n, const std::string& kernel) {
  const std::string& f = n.function;
  if (f.rfind("__device_stub", 0) == 0 || f.rfind("cudaLaunch", 0) == 0 || f.rfind("__cudaLaunch", 0) == 0) return true;
  if (!kernel.empty() && f == kernel) return true;  // the kernel's host-side wrapper nvcc generates
  const std::string& l = n.location;
  return l.find(".stub.c") != std::string::npos || l.find("cudafe1") != std::string::npos ||
         l.find("/cuda/") != std::string::npos || l.find("cuda_runtime") != std::string::npos ||
         l.find("/include/c++/") != std::string::npos || l.find("/libsanitizer/") != std::string::npos ||
         f.find("__interceptor_") != std::string::npos;
}

}  // namespace

std::string describe_launch_site(const LaunchSite& site, const std::string& kernel) {
  Dl_info self{};
  if (!dladdr(reinterpret_cast<void*>(&capture_launch_site), &self)) return "";
  // The program's frames (outside this runtime), grouped by the object they are in.
  struct Frame {
    std::string object;
    uintptr_t address;
  };
  std::vector<Frame> frames;
  for (void* f : site.frames) {
    Dl_info info{};
    if (!dladdr(f, &info) || !info.dli_fname) continue;
    if (info.dli_fbase == self.dli_fbase) continue;
    std::string object = info.dli_fname;
    if (object.empty() || object.find("libc.so") != std::string::npos) continue;
    // A sanitizer's runtime (AddressSanitizer intercepts backtrace itself) is not the program.
    if (object.find("libasan.so") != std::string::npos || object.find("libubsan.so") != std::string::npos ||
        object.find("libtsan.so") != std::string::npos)
      continue;
    if (object.find('/') == std::string::npos) {
      char exe[4096];
      const ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
      if (len <= 0) continue;
      object.assign(exe, size_t(len));
    }
    // A return address points after the call: step back into the call instruction.
    uintptr_t a = reinterpret_cast<uintptr_t>(f) - 1;
    if (!fixed_address(object.c_str())) a -= reinterpret_cast<uintptr_t>(info.dli_fbase);
    frames.push_back({object, a});
  }
  std::map<std::string, std::vector<uintptr_t>> by_object;
  for (const Frame& f : frames) by_object[f.object].push_back(f.address);
  std::map<std::string, std::vector<Named>> names;
  for (const auto& [object, addresses] : by_object) names[object] = addr2line(object, addresses);
  std::map<std::string, size_t> next;
  for (const Frame& f : frames) {
    const std::vector<Named>& list = names[f.object];
    const size_t i = next[f.object]++;
    if (i >= list.size()) return "";
    const Named& n = list[i];
    if (n.function.empty() && n.location.empty()) continue;
    if (plumbing(n, kernel)) continue;
    if (n.location.empty()) return "from " + n.function;
    std::string where = n.location;
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {
      const std::string prefix = std::string(cwd) + "/";
      if (where.rfind(prefix, 0) == 0) where = where.substr(prefix.size());
    }
    return "at " + (n.function.empty() ? where : where + " (in " + n.function + ")");
  }
  return "";
}

}  // namespace synclab::rt
