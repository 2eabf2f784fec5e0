// Reading and writing the litmus format (docs/litmus-format.md).

#include "sim/memory/oracle/litmus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace synclab::memory {

namespace {

std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
  while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
  return s.substr(a, b - a);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

bool parse_int(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  if (s.size() - i > 15) return false;
  *v = std::stoll(s);
  return true;
}

bool is_name(const std::string& s) {
  if (s.empty() || !std::isalpha(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "r12" -> 12
bool parse_reg(const std::string& s, int* r) {
  if (s.size() < 2 || s[0] != 'r') return false;
  int64_t v;
  if (!parse_int(s.substr(1), &v) || v < 0 || v > 999) return false;
  *r = int(v);
  return true;
}

bool parse_scope(const std::string& s, Scope* sc) {
  if (s == "cta")
    *sc = Scope::Cta;
  else if (s == "gpu")
    *sc = Scope::Gpu;
  else if (s == "sys")
    *sc = Scope::Sys;
  else
    return false;
  return true;
}

class Parser {
 public:
  Parser(const std::string& file) : file_(file) {}

  [[noreturn]] void error(const std::string& what) const {
    throw LitmusError(fmt::format("{}:{}: {}", file_, line_, what));
  }

  std::vector<LitmusTest> parse(const std::string& text) {
    std::istringstream in(text);
    std::string raw;
    while (std::getline(in, raw)) {
      ++line_;
      const size_t hash = raw.find('#');
      const std::string s = trim(hash == std::string::npos ? raw : raw.substr(0, hash));
      if (s.empty()) continue;
      const std::vector<std::string> w = words(s);
      const std::string& key = w[0];
      if (key == "litmus") {
        finish();
        if (w.size() != 2) error("`litmus` takes one name: litmus NAME");
        for (char c : w[1])
          if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("+-_.'").find(c) == std::string::npos)
            error(fmt::format("test name '{}' has the character '{}' (letters, digits and +-_.' only)", w[1], c));
        if (!names_.insert(w[1]).second) error(fmt::format("a second test named '{}' in this file", w[1]));
        cur_ = LitmusTest{};
        cur_->name = w[1];
        cur_->file = file_;
        cur_->line = line_;
        thread_ = -1;
        continue;
      }
      if (!cur_) error(fmt::format("'{}' before the first `litmus NAME` line", s));
      if (key == "source") {
        cur_->sources.push_back(trim(s.substr(6)));
      } else if (key == "disagree") {
        if (w.size() < 2) error("`disagree` needs the reason: disagree WHY");
        cur_->disagree = trim(s.substr(8));
      } else if (key == "gap") {
        if (w.size() < 2) error("`gap` needs the rule that keeps the outcome out of the simulator's reach: gap RULE");
        cur_->gap = trim(s.substr(3));
      } else if (key == "model") {
        if (w.size() != 2 || w[1] != "ptx") error("`model` must be `model ptx` (the only model the oracle knows)");
      } else if (key == "thread") {
        parse_thread(w);
      } else if (key == "exists") {
        parse_exists(trim(s.substr(6)));
      } else if (key == "expect") {
        if (w.size() != 2 || (w[1] != "allowed" && w[1] != "forbidden"))
          error("`expect` must be followed by `allowed` or `forbidden`");
        if (cur_->expect_allowed) error("a second `expect` line");
        cur_->expect_allowed = w[1] == "allowed";
      } else {
        if (thread_ < 0) error(fmt::format("'{}': an instruction before any `thread N` line", s));
        parse_op(s);
      }
    }
    finish();
    if (tests_.empty()) {
      line_ = 0;
      error("no test in the file (a test starts with `litmus NAME`)");
    }
    return std::move(tests_);
  }

 private:
  void parse_thread(const std::vector<std::string>& w) {
    if (w.size() < 2) error("`thread` needs its number: thread N [cta C] [warp W] [host]");
    int64_t n;
    if (!parse_int(w[1], &n) || n != int64_t(cur_->threads.size()))
      error(fmt::format("threads are numbered 0, 1, 2, ... in order: expected `thread {}`, found `thread {}`",
                        cur_->threads.size(), w[1]));
    LitmusThread t;
    cta_given_.push_back(false);
    warp_given_.push_back(false);
    for (size_t i = 2; i < w.size(); ++i) {
      int64_t v;
      if (w[i] == "host") {
        t.place.host = true;
      } else if ((w[i] == "cta" || w[i] == "warp") && i + 1 < w.size() && parse_int(w[i + 1], &v) && v >= 0 &&
                 v < 1024) {
        if (w[i] == "cta") {
          t.place.cta = uint32_t(v);
          cta_given_.back() = true;
        } else {
          t.place.warp = uint32_t(v);
          warp_given_.back() = true;
        }
        ++i;
      } else {
        error(fmt::format("'{}' in a thread line: expected `cta C`, `warp W` or `host`", w[i]));
      }
    }
    if (t.place.host && (cta_given_.back() || warp_given_.back()))
      error("a host thread has no block or warp (`thread N host` alone)");
    for (const LitmusThread& o : cur_->threads)
      if (t.place.host && o.place.host) error("a second host thread (a test has at most one)");
    cur_->threads.push_back(t);
    thread_ = int(cur_->threads.size()) - 1;
    regs_written_.emplace_back();
  }

  uint32_t loc_of(const std::string& operand) {
    if (operand.size() < 3 || operand.front() != '[' || operand.back() != ']')
      error(fmt::format("'{}': a location is written [name]", operand));
    const std::string name = trim(operand.substr(1, operand.size() - 2));
    if (!is_name(name)) error(fmt::format("'{}' is not a location name (letters, digits, _)", name));
    if (name.size() >= 2 && name[0] == 'r' && std::isdigit(static_cast<unsigned char>(name[1])))
      error(fmt::format("'{}' looks like a register; locations are named x, y, z, flag, data, ...", name));
    auto& locs = cur_->locs;
    auto it = std::find(locs.begin(), locs.end(), name);
    if (it != locs.end()) return uint32_t(it - locs.begin());
    locs.push_back(name);
    return uint32_t(locs.size() - 1);
  }

  LitmusValue value_of(const std::string& s) {
    LitmusValue v;
    int r;
    if (parse_reg(s, &r)) {
      if (!regs_written_[size_t(thread_)].count(r))
        error(fmt::format("register r{} is used before an instruction of thread {} writes it", r, thread_));
      v.is_reg = true;
      v.value = r;
      return v;
    }
    if (!parse_int(s, &v.value)) error(fmt::format("'{}' is neither a number nor a register rK", s));
    return v;
  }

  void parse_op(const std::string& s) {
    LitmusOp op;
    op.line = line_;
    std::string body = s;
    // A destination register: "rK = ..."
    const size_t eq = body.find('=');
    if (eq != std::string::npos) {
      const std::string lhs = trim(body.substr(0, eq));
      int r;
      if (!parse_reg(lhs, &r)) error(fmt::format("'{}': the left of '=' must be a register rK", lhs));
      op.reg = r;
      body = trim(body.substr(eq + 1));
    }
    // Dependencies at the end: "... dep r0,r1"
    const size_t dpos = body.find(" dep ");
    std::string deps;
    if (dpos != std::string::npos) {
      deps = trim(body.substr(dpos + 5));
      body = trim(body.substr(0, dpos));
    }
    const size_t sp = body.find_first_of(" \t");
    const std::string opcode = body.substr(0, sp);
    const std::string rest = sp == std::string::npos ? "" : trim(body.substr(sp));
    std::vector<std::string> q = split(opcode, '.');
    const std::string base = q[0];
    q.erase(q.begin());
    std::vector<std::string> args = rest.empty() ? std::vector<std::string>{} : split(rest, ',');

    auto need_args = [&](size_t n, const char* form) {
      if (args.size() != n) error(fmt::format("'{}': expected {}", s, form));
    };
    auto sem_scope = [&](bool allow_acq, bool allow_rel) {
      // [] | weak | volatile | relaxed.S | acquire.S | release.S
      if (q.empty() || (q.size() == 1 && q[0] == "weak")) {
        op.scope = Scope::Thread;
        return;
      }
      if (q.size() == 1 && q[0] == "volatile") {
        op.is_volatile = true;
        op.scope = Scope::Sys;
        return;
      }
      if (q.size() != 2)
        error(fmt::format("'{}': qualifiers must be .relaxed.S, .{}.S, .volatile or none", opcode,
                          allow_acq ? "acquire" : "release"));
      if (!parse_scope(q[1], &op.scope)) error(fmt::format("'{}': scope '{}' (cta, gpu or sys)", opcode, q[1]));
      if (q[0] == "relaxed") return;
      if (q[0] == "acquire" && allow_acq) {
        op.acquire = true;
        return;
      }
      if (q[0] == "release" && allow_rel) {
        op.release = true;
        return;
      }
      error(fmt::format("'{}': '{}' is not an order this instruction takes", opcode, q[0]));
    };

    if (base == "ld") {
      op.kind = LitmusOp::Kind::Ld;
      if (op.reg < 0) error(fmt::format("'{}': a load writes a register: rK = ld... [x]", s));
      sem_scope(true, false);
      need_args(1, "one operand, the location: rK = ld... [x]");
      op.loc = loc_of(args[0]);
    } else if (base == "st") {
      op.kind = LitmusOp::Kind::St;
      if (op.reg >= 0) error(fmt::format("'{}': a store writes no register", s));
      sem_scope(false, true);
      need_args(2, "a location and a value: st... [x], 1");
      op.loc = loc_of(args[0]);
      op.value = value_of(args[1]);
    } else if (base == "atom" || base == "red") {
      op.kind = base == "atom" ? LitmusOp::Kind::Atom : LitmusOp::Kind::Red;
      if (base == "atom" && op.reg < 0) error(fmt::format("'{}': atom writes a register: rK = atom... [x], V", s));
      if (base == "red" && op.reg >= 0) error(fmt::format("'{}': red writes no register (atom does)", s));
      // [.sem][.scope].op
      size_t i = 0;
      if (i < q.size() && (q[i] == "relaxed" || q[i] == "acquire" || q[i] == "release" || q[i] == "acq_rel")) {
        op.acquire = q[i] == "acquire" || q[i] == "acq_rel";
        op.release = q[i] == "release" || q[i] == "acq_rel";
        ++i;
      }
      op.scope = Scope::Gpu;
      if (i < q.size() && parse_scope(q[i], &op.scope)) ++i;
      if (i + 1 != q.size()) error(fmt::format("'{}': expected {}[.SEM][.S].add|exch|cas", opcode, base));
      if (q[i] == "add")
        op.rmw = LitmusOp::Rmw::Add;
      else if (q[i] == "exch" && base == "atom")
        op.rmw = LitmusOp::Rmw::Exch;
      else if (q[i] == "cas" && base == "atom")
        op.rmw = LitmusOp::Rmw::Cas;
      else
        error(fmt::format("'{}': operation '{}' ({})", opcode, q[i], base == "atom" ? "add, exch or cas" : "add"));
      if (op.rmw == LitmusOp::Rmw::Cas) {
        need_args(3, "a location, the expected value and the new one: rK = atom.cas [x], 0, 1");
        op.value2 = value_of(args[2]);
      } else {
        need_args(2, "a location and a value");
      }
      op.loc = loc_of(args[0]);
      op.value = value_of(args[1]);
    } else if (base == "fence" || base == "membar") {
      op.kind = LitmusOp::Kind::Fence;
      if (op.reg >= 0 || !args.empty()) error(fmt::format("'{}': a fence takes no operands", s));
      if (base == "membar") {
        if (q.size() != 1) error("membar takes one scope: membar.cta, membar.gl or membar.sys");
        op.fence = FenceKind::Sc;
        if (q[0] == "cta")
          op.scope = Scope::Cta;
        else if (q[0] == "gl")
          op.scope = Scope::Gpu;
        else if (q[0] == "sys")
          op.scope = Scope::Sys;
        else
          error(fmt::format("membar.{}: the scopes are cta, gl and sys", q[0]));
      } else {
        if (q.size() != 2) error(fmt::format("'{}': a fence is fence.KIND.S (sc, acq_rel, acquire, release)", opcode));
        if (q[0] == "sc")
          op.fence = FenceKind::Sc;
        else if (q[0] == "acq_rel")
          op.fence = FenceKind::AcqRel;
        else if (q[0] == "acquire")
          op.fence = FenceKind::Acquire;
        else if (q[0] == "release")
          op.fence = FenceKind::Release;
        else
          error(fmt::format("fence.{}: the kinds are sc, acq_rel, acquire and release", q[0]));
        if (!parse_scope(q[1], &op.scope)) error(fmt::format("'{}': scope '{}' (cta, gpu or sys)", opcode, q[1]));
      }
    } else if (base == "bar") {
      op.kind = LitmusOp::Kind::Bar;
      if (q.size() != 1 || q[0] != "sync" || !args.empty() || op.reg >= 0) error("the barrier is written `bar.sync`");
      if (cur_->threads[size_t(thread_)].place.host) error("a host thread cannot take part in bar.sync");
      op.scope = Scope::Cta;
    } else {
      error(fmt::format("'{}': unknown instruction (ld, st, atom, red, fence, membar, bar.sync)", base));
    }
    if (cur_->threads[size_t(thread_)].place.host && op.kind != LitmusOp::Kind::Fence && op.scope != Scope::Thread &&
        op.scope != Scope::Sys)
      error(fmt::format("'{}': a host thread's strong operations are at sys scope", s));
    if (!deps.empty())
      for (const std::string& d : split(deps, ',')) {
        int r;
        if (!parse_reg(d, &r)) error(fmt::format("dep '{}': a dependency names a register rK", d));
        if (!regs_written_[size_t(thread_)].count(r))
          error(fmt::format("dep r{}: no earlier instruction of thread {} writes r{}", r, thread_, r));
        op.deps.push_back(r);
      }
    if (op.reg >= 0) {
      if (!regs_written_[size_t(thread_)].insert(op.reg).second)
        error(fmt::format("register r{} is written twice in thread {} (each register once)", op.reg, thread_));
      LitmusThread& t = cur_->threads[size_t(thread_)];
      t.regs = std::max(t.regs, op.reg + 1);
    }
    op.text = normal_text(op);
    cur_->threads[size_t(thread_)].ops.push_back(op);
  }

  std::string normal_text(const LitmusOp& op) const {
    auto val = [](const LitmusValue& v) { return v.is_reg ? fmt::format("r{}", v.value) : fmt::format("{}", v.value); };
    auto ss = [](const LitmusOp& o) {
      if (o.is_volatile) return std::string(".volatile");
      if (o.scope == Scope::Thread) return std::string();
      return fmt::format(".{}.{}", o.acquire ? "acquire" : o.release ? "release" : "relaxed", scope_name(o.scope));
    };
    const bool has_loc = op.kind != LitmusOp::Kind::Fence && op.kind != LitmusOp::Kind::Bar;
    const std::string L = has_loc && op.loc < cur_->locs.size() ? "[" + cur_->locs[op.loc] + "]" : "";
    std::string s;
    switch (op.kind) {
      case LitmusOp::Kind::Ld: s = fmt::format("r{} = ld{} {}", op.reg, ss(op), L); break;
      case LitmusOp::Kind::St: s = fmt::format("st{} {}, {}", ss(op), L, val(op.value)); break;
      case LitmusOp::Kind::Atom:
      case LitmusOp::Kind::Red: {
        const char* sem = op.acquire && op.release ? "acq_rel"
                          : op.acquire             ? "acquire"
                          : op.release             ? "release"
                                                   : "relaxed";
        const char* what = op.rmw == LitmusOp::Rmw::Add ? "add" : op.rmw == LitmusOp::Rmw::Exch ? "exch" : "cas";
        if (op.kind == LitmusOp::Kind::Atom)
          s = fmt::format("r{} = atom.{}.{}.{} {}, {}{}", op.reg, sem, scope_name(op.scope), what, L, val(op.value),
                          op.rmw == LitmusOp::Rmw::Cas ? ", " + val(op.value2) : "");
        else
          s = fmt::format("red.{}.{}.add {}, {}", sem, scope_name(op.scope), L, val(op.value));
        break;
      }
      case LitmusOp::Kind::Fence: s = fmt::format("fence.{}.{}", fence_name(op.fence), scope_name(op.scope)); break;
      case LitmusOp::Kind::Bar: s = "bar.sync"; break;
    }
    if (!op.deps.empty()) {
      s += " dep ";
      for (size_t i = 0; i < op.deps.size(); ++i) s += fmt::format("{}r{}", i ? "," : "", op.deps[i]);
    }
    return s;
  }

  void parse_exists(const std::string& s) {
    if (!cur_->exists.empty()) error("a second `exists` line");
    std::string t = s;
    for (size_t p; (p = t.find("/\\")) != std::string::npos;) t.replace(p, 2, "&");
    for (const std::string& term : split(t, '&')) {
      const size_t eq = term.find('=');
      if (eq == std::string::npos) error(fmt::format("'{}' in exists: expected T:rK=V or LOC=V", term));
      const std::string lhs = trim(term.substr(0, eq));
      LitmusCond c;
      if (!parse_int(trim(term.substr(eq + 1)), &c.value))
        error(fmt::format("'{}' in exists: the value must be a number", term));
      const size_t colon = lhs.find(':');
      if (colon != std::string::npos) {
        int64_t th;
        if (!parse_int(lhs.substr(0, colon), &th) || th < 0 || th >= int64_t(cur_->threads.size()))
          error(fmt::format("'{}' in exists: no thread {}", term, lhs.substr(0, colon)));
        if (!parse_reg(lhs.substr(colon + 1), &c.reg) || !regs_written_[size_t(th)].count(c.reg))
          error(fmt::format("'{}' in exists: thread {} writes no register '{}'", term, th, lhs.substr(colon + 1)));
        c.thread = uint32_t(th);
      } else {
        c.is_reg = false;
        auto it = std::find(cur_->locs.begin(), cur_->locs.end(), lhs);
        if (it == cur_->locs.end())
          error(fmt::format("'{}' in exists: no instruction accesses location '{}'", term, lhs));
        c.loc = uint32_t(it - cur_->locs.begin());
      }
      cur_->exists.push_back(c);
    }
  }

  void finish() {
    if (!cur_) return;
    LitmusTest& t = *cur_;
    const int saved = line_;
    line_ = t.line;
    if (t.threads.empty()) error(fmt::format("test '{}' has no threads", t.name));
    if (t.exists.empty()) error(fmt::format("test '{}' has no `exists` line", t.name));
    if (!t.disagree.empty() && !t.expect_allowed)
      error(fmt::format("test '{}': `disagree` without an `expect` verdict to disagree with", t.name));
    if (!t.gap.empty() && !(t.expect_allowed && *t.expect_allowed))
      error(
          fmt::format("test '{}': `gap` names why the simulator cannot produce an allowed outcome: it needs "
                      "`expect allowed`",
                      t.name));
    // Default placement: a block of its own, after the named ones; a warp of its own in its block.
    uint32_t next_cta = 0;
    for (size_t i = 0; i < t.threads.size(); ++i)
      if (cta_given_[i]) next_cta = std::max(next_cta, t.threads[i].place.cta + 1);
    for (size_t i = 0; i < t.threads.size(); ++i)
      if (!cta_given_[i] && !t.threads[i].place.host) t.threads[i].place.cta = next_cta++;
    for (size_t i = 0; i < t.threads.size(); ++i) {
      if (warp_given_[i] || t.threads[i].place.host) continue;
      std::set<uint32_t> used;
      for (size_t j = 0; j < t.threads.size(); ++j)
        if (j != i && (warp_given_[j] || j < i) && t.threads[j].place.cta == t.threads[i].place.cta &&
            !t.threads[j].place.host)
          used.insert(t.threads[j].place.warp);
      uint32_t w = 0;
      while (used.count(w)) ++w;
      t.threads[i].place.warp = w;
    }
    // bar.sync: every thread of a block reaches the same number of barriers.
    std::map<uint32_t, int> bars;
    for (size_t i = 0; i < t.threads.size(); ++i) {
      if (t.threads[i].place.host) continue;
      int n = 0;
      for (const LitmusOp& op : t.threads[i].ops) n += op.kind == LitmusOp::Kind::Bar;
      auto [it, fresh] = bars.emplace(t.threads[i].place.cta, n);
      if (!fresh && it->second != n)
        error(fmt::format("test '{}': the threads of block {} reach different numbers of bar.sync (a deadlock)", t.name,
                          t.threads[i].place.cta));
    }
    if (t.locs.size() > 26) error(fmt::format("test '{}' uses {} locations (at most 26)", t.name, t.locs.size()));
    line_ = saved;
    tests_.push_back(std::move(t));
    cur_.reset();
    cta_given_.clear();
    warp_given_.clear();
    regs_written_.clear();
  }

  std::string file_;
  int line_ = 0;
  std::optional<LitmusTest> cur_;
  int thread_ = -1;
  std::vector<bool> cta_given_, warp_given_;
  std::vector<std::set<int>> regs_written_;
  std::set<std::string> names_;
  std::vector<LitmusTest> tests_;
};

}  // namespace

std::vector<LitmusTest> parse_litmus(const std::string& text, const std::string& file) {
  return Parser(file).parse(text);
}

std::vector<LitmusTest> read_litmus_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw LitmusError(fmt::format("{}: cannot open the file", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_litmus(ss.str(), path);
}

std::string LitmusTest::cond_text() const {
  std::string s;
  for (size_t i = 0; i < exists.size(); ++i) {
    const LitmusCond& c = exists[i];
    s += i ? " & " : "";
    s += c.is_reg ? fmt::format("{}:r{}={}", c.thread, c.reg, c.value) : fmt::format("{}={}", locs[c.loc], c.value);
  }
  return s;
}

std::string LitmusTest::to_text() const {
  std::string s = fmt::format("litmus {}\n", name);
  for (const std::string& src : sources) s += fmt::format("source {}\n", src);
  for (size_t i = 0; i < threads.size(); ++i) {
    const ThreadPlace& p = threads[i].place;
    s += p.host ? fmt::format("thread {} host\n", i) : fmt::format("thread {} cta {} warp {}\n", i, p.cta, p.warp);
    for (const LitmusOp& op : threads[i].ops) s += "  " + op.text + "\n";
  }
  s += "exists " + cond_text() + "\n";
  if (expect_allowed) s += fmt::format("expect {}\n", *expect_allowed ? "allowed" : "forbidden");
  if (!disagree.empty()) s += fmt::format("disagree {}\n", disagree);
  if (!gap.empty()) s += fmt::format("gap {}\n", gap);
  return s;
}

}  // namespace synclab::memory
