// Generating litmus tests from cycles of relaxation edges (generate.h).
//
// Where things are (the sections below, in this order):
//   Random numbers      Rng (splitmix64: the same tests from a seed everywhere), mix
//   Edges and cycles    Edge and its names (edge_name, parse_edge, parse_cycle); the rotation a cycle is
//                       written from (canonical); the classic shapes (kClassics); every cycle within the
//                       limits (CycleEnumerator)
//   Shapes              Shape, make_shape: a cycle's accesses, threads and locations, and whether it is
//                       critical
//   Decorations         what each access and program-order edge is (NodeDeco, EdgeDeco, Decoration);
//                       is_rmw, has_read, has_write, has_reg, is_store
//   Values              Valuation; cut_order, valuate (the values along each location's path, and the reads
//                       and final values `exists` names so that it shows the cycle); read_value, write_value
//   Decorating          what a variant stresses (Focus, focus_list); random accesses and fences
//                       (atom_deco, random_access, random_fence); where the threads run (make_places);
//                       decorate
//   Text and name       the tokens of a test's name (node_token, link_token, placement_token), the cycle's
//                       edges (decorated_edge), placement_kind; build_text
//   Cost and features   estimate_cost (the enumerator's work on a test), features_of (for the statistics)
//   Generation          generate_litmus: the cycles, grouped and shuffled by seed; attempt, one variant of a
//                       cycle (decorate, valuate, enumerate, keep or drop); rounds over the groups
//   Command             generate_summary, generate_command (synclab-litmus generate)

#include "sim/memory/oracle/generate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <set>
#include <unordered_set>

#include "sim/memory/oracle/enumerate.h"

namespace synclab::memory {

namespace {

// A small deterministic generator (splitmix64): the standard distributions differ between
// libraries, and the same seed must give the same tests everywhere.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  size_t below(size_t n) { return n ? size_t(next() % n) : 0; }
  bool percent(int p) { return below(100) < size_t(p); }
  // An index drawn with the given weights.
  size_t weighted(const std::vector<int>& w) {
    int total = 0;
    for (int x : w) total += x;
    int r = int(below(size_t(total)));
    for (size_t i = 0; i < w.size(); ++i) {
      if (r < w[i]) return i;
      r -= w[i];
    }
    return w.size() - 1;
  }

 private:
  uint64_t s_;
};

uint64_t mix(uint64_t a, uint64_t b) { return Rng(a * 0x2545F4914F6CDD1Dull ^ (b + 0x632BE59BD9B4E019ull)).next(); }

// ---------------------------------------------------------------------------------------------
// Edges and cycles

enum class Dir : uint8_t { R, W };
enum class Rel : uint8_t { Po, Rf, Fr, Co };

struct Edge {
  Rel rel = Rel::Po;
  bool ext = false;       // a communication edge between two threads
  bool same_loc = false;  // program order: both accesses to one location (communication: always)
  Dir src = Dir::W, dst = Dir::W;
};

char dir_char(Dir d) { return d == Dir::R ? 'R' : 'W'; }

bool is_pod(const Edge& e) { return e.rel == Rel::Po && !e.same_loc; }

std::string edge_name(const Edge& e) {
  switch (e.rel) {
    case Rel::Po: return fmt::format("Po{}{}{}", e.same_loc ? 's' : 'd', dir_char(e.src), dir_char(e.dst));
    case Rel::Rf: return e.ext ? "Rfe" : "Rfi";
    case Rel::Fr: return e.ext ? "Fre" : "Fri";
    case Rel::Co: return e.ext ? "Coe" : "Coi";
  }
  return "?";
}

// Rotations of a cycle are compared by these codes, least first: a cycle is written from the
// rotation that starts, where it can, with a write and with program order, as the classic tests
// are (MP's writer is thread 0).
int edge_code(const Edge& e) {
  return (e.src == Dir::W ? 0 : 1) * 64 + int(e.rel) * 16 + (e.ext ? 8 : 0) + (e.same_loc ? 4 : 0) +
         (e.dst == Dir::W ? 0 : 1);
}

std::vector<Edge> vocabulary() {
  std::vector<Edge> v;
  for (bool same : {false, true})
    for (Dir a : {Dir::W, Dir::R})
      for (Dir b : {Dir::W, Dir::R}) v.push_back({Rel::Po, false, same, a, b});
  for (bool ext : {true, false}) {
    v.push_back({Rel::Rf, ext, true, Dir::W, Dir::R});
    v.push_back({Rel::Fr, ext, true, Dir::R, Dir::W});
    v.push_back({Rel::Co, ext, true, Dir::W, Dir::W});
  }
  return v;
}

bool parse_edge(const std::string& s, Edge* e) {
  for (const Edge& v : vocabulary())
    if (edge_name(v) == s) {
      *e = v;
      return true;
    }
  return false;
}

std::vector<Edge> parse_cycle(const std::string& text) {
  std::vector<Edge> c;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(' ', pos);
    if (end == std::string::npos) end = text.size();
    Edge e;
    if (end > pos && parse_edge(text.substr(pos, end - pos), &e)) c.push_back(e);
    pos = end + 1;
  }
  return c;
}

std::string cycle_name(const std::vector<Edge>& c, const char* sep) {
  std::string s;
  for (size_t i = 0; i < c.size(); ++i) s += (i ? sep : "") + edge_name(c[i]);
  return s;
}

// Threads start after external edges; a cycle is always written from the start of a thread.
bool starts_thread(const std::vector<Edge>& c, size_t j) { return c[(j + c.size() - 1) % c.size()].ext; }

std::vector<int> rotation_codes(const std::vector<Edge>& c, size_t start) {
  std::vector<int> k;
  for (size_t i = 0; i < c.size(); ++i) k.push_back(edge_code(c[(start + i) % c.size()]));
  return k;
}

// The rotation of the cycle that is written: least codes among those that start a thread.
std::vector<Edge> canonical(const std::vector<Edge>& c) {
  size_t best = c.size();
  std::vector<int> best_codes;
  for (size_t j = 0; j < c.size(); ++j) {
    if (!starts_thread(c, j)) continue;
    std::vector<int> k = rotation_codes(c, j);
    if (best == c.size() || k < best_codes) {
      best = j;
      best_codes = k;
    }
  }
  std::vector<Edge> r;
  for (size_t i = 0; i < c.size(); ++i) r.push_back(c[(best + i) % c.size()]);
  return r;
}

// The classic shapes, as they are usually written (thread 0 first).
struct Classic {
  const char* name;
  const char* cycle;
};
const Classic kClassics[] = {
    {"MP", "PodWW Rfe PodRR Fre"},
    {"SB", "PodWR Fre PodWR Fre"},
    {"LB", "PodRW Rfe PodRW Rfe"},
    {"S", "PodWW Rfe PodRW Coe"},
    {"R", "PodWW Coe PodWR Fre"},
    {"2+2W", "PodWW Coe PodWW Coe"},
    {"CoRR", "Rfe PosRR Fre"},
    {"CoRW", "Rfe PosRW Coe"},
    {"CoWR", "PosWR Fre Coe"},
    {"CoWW", "PosWW Rfe Fre"},
    {"WRC", "Rfe PodRW Rfe PodRR Fre"},
    {"RWC", "Rfe PodRR Fre PodWR Fre"},
    {"WWC", "Rfe PodRW Rfe PodRW Coe"},
    {"ISA2", "PodWW Rfe PodRW Rfe PodRR Fre"},
    {"W+RWC", "PodWW Rfe PodRR Fre PodWR Fre"},
    {"Z6.0", "PodWW Rfe PodRW Coe PodWR Fre"},
    {"Z6.1", "PodWW Coe PodWW Rfe PodRW Coe"},
    {"Z6.2", "PodWW Rfe PodRW Rfe PodRW Coe"},
    {"Z6.3", "PodWW Coe PodWW Rfe PodRR Fre"},
    {"Z6.4", "PodWW Coe PodWR Fre PodWR Fre"},
    {"Z6.5", "PodWW Coe PodWW Coe PodWR Fre"},
    {"3.SB", "PodWR Fre PodWR Fre PodWR Fre"},
    {"3.LB", "PodRW Rfe PodRW Rfe PodRW Rfe"},
    {"3.2W", "PodWW Coe PodWW Coe PodWW Coe"},
    {"IRIW", "Rfe PodRR Fre Rfe PodRR Fre"},
};
constexpr int kNumClassics = int(sizeof(kClassics) / sizeof(kClassics[0]));

// Every cycle of the vocabulary's edges within the limits, once each (in its written rotation):
// 2 to max_threads threads (external edges), at most max_ops accesses per thread, at most 6
// accesses in all (8 with two threads), no location changed by a single Pod edge only (the cycle
// could not come back to it), and, to keep the set small and the tests readable, at most one
// internal communication edge, one access whose two edges disagree on its direction (an atom),
// and two Pos edges.
class CycleEnumerator {
 public:
  CycleEnumerator(int max_threads, int max_ops) : max_threads_(max_threads), max_ops_(max_ops), vocab_(vocabulary()) {}

  std::vector<std::vector<Edge>> run() {
    for (size_t len = 2; len <= 8; ++len) {
      len_ = len;
      dfs(0, 1, 0, 0, 0, 0);
    }
    return std::move(out_);
  }

 private:
  void dfs(int ext, int nodes_in_thread, int rmw, int pos, int icom, int pod) {
    if (cur_.size() == len_) {
      finish(ext, rmw, pod);
      return;
    }
    for (const Edge& e : vocab_) {
      const int r = rmw + (!cur_.empty() && cur_.back().dst != e.src ? 1 : 0);
      if (r > 1) continue;
      const int x = ext + (e.ext ? 1 : 0);
      if (x > max_threads_ || (len_ > 6 && x > 2)) continue;
      const bool last = cur_.size() + 1 == len_;
      if (last && !e.ext) continue;
      int n = nodes_in_thread;
      if (!e.ext && ++n > max_ops_) continue;
      if (e.ext) n = 1;
      const int p = pos + (e.rel == Rel::Po && e.same_loc ? 1 : 0);
      const int ic = icom + (e.rel != Rel::Po && !e.ext ? 1 : 0);
      if (p > 2 || ic > 1) continue;
      cur_.push_back(e);
      dfs(x, n, r, p, ic, pod + (is_pod(e) ? 1 : 0));
      cur_.pop_back();
    }
  }

  void finish(int ext, int rmw, int pod) {
    if (ext < 2 || pod == 1) return;
    if (len_ > 6 && ext != 2) return;
    if (rmw + (cur_.back().dst != cur_.front().src ? 1 : 0) > 1) return;
    const std::vector<int> mine = rotation_codes(cur_, 0);
    for (size_t j = 1; j < cur_.size(); ++j)
      if (starts_thread(cur_, j) && rotation_codes(cur_, j) < mine) return;
    out_.push_back(cur_);
  }

  int max_threads_, max_ops_;
  std::vector<Edge> vocab_;
  size_t len_ = 0;
  std::vector<Edge> cur_;
  std::vector<std::vector<Edge>> out_;
};

// ---------------------------------------------------------------------------------------------
// The shape of a cycle: its accesses (nodes), threads and locations. Node i is the source of
// edge i and the target of edge i-1.

struct Shape {
  std::vector<Edge> edges;
  int classic = -1;  // index in kClassics, or -1
  std::string family;
  int threads = 0, locs = 0;
  std::vector<int> thread_of, loc_of;     // per node
  std::vector<std::vector<int>> program;  // per thread: its nodes in program order
  std::vector<std::vector<int>> paths;    // per location: its nodes in the order the cycle visits them
  int cut = -1;                           // a one-location cycle: the edge whose target the values start from
  bool critical = false, internal_com = false, rmw_node = false;

  int nodes() const { return int(edges.size()); }
  const Edge& in_edge(int n) const { return edges[size_t((n + nodes() - 1) % nodes())]; }
  Dir in(int n) const { return in_edge(n).dst; }
  Dir out(int n) const { return edges[size_t(n)].src; }
  bool one_location() const { return locs == 1 && std::none_of(edges.begin(), edges.end(), is_pod); }
};

Shape make_shape(const std::vector<Edge>& edges) {
  Shape s;
  s.edges = edges;
  const int N = s.nodes();
  s.thread_of.assign(size_t(N), 0);
  for (int i = 0; i + 1 < N; ++i) s.thread_of[size_t(i) + 1] = s.thread_of[size_t(i)] + (edges[size_t(i)].ext ? 1 : 0);
  s.threads = s.thread_of.back() + 1;
  s.program.resize(size_t(s.threads));
  for (int i = 0; i < N; ++i) s.program[size_t(s.thread_of[size_t(i)])].push_back(i);
  s.loc_of.assign(size_t(N), 0);
  int start = -1;
  for (int i = 0; i < N && start < 0; ++i)
    if (is_pod(s.in_edge(i))) start = i;
  if (start < 0) {
    s.locs = 1;  // the path is set with the cut
  } else {
    int loc = 0;
    s.paths.push_back({start});
    for (int k = 1; k < N; ++k) {
      const int n = (start + k) % N;
      if (is_pod(s.in_edge(n))) {
        ++loc;
        s.paths.emplace_back();
      }
      s.loc_of[size_t(n)] = loc;
      s.paths[size_t(loc)].push_back(n);
    }
    s.locs = loc + 1;
  }
  for (const Edge& e : edges) s.internal_com |= e.rel != Rel::Po && !e.ext;
  for (int i = 0; i < N; ++i) s.rmw_node |= s.in(i) != s.out(i);
  // Critical (Shasha and Snir, as diy uses it): at most two accesses per thread, to different
  // locations; at most three accesses per location, in different threads.
  bool crit = !s.internal_com && !s.rmw_node && start >= 0;
  for (const Edge& e : edges) crit &= e.ext || is_pod(e);
  for (const auto& p : s.program) crit &= p.size() <= 2;
  for (const auto& p : s.paths) {
    crit &= p.size() <= 3;
    std::set<int> ts;
    for (int n : p) ts.insert(s.thread_of[size_t(n)]);
    crit &= ts.size() == p.size();
  }
  s.critical = crit;
  s.family = cycle_name(edges, "-");
  return s;
}

// ---------------------------------------------------------------------------------------------
// Decorations

enum class Access : uint8_t { Weak, Relaxed, Acquire, Release, Volatile, Atom, Red };
enum class Link : uint8_t { None, Fence, Dep, Data };

struct NodeDeco {
  Access access = Access::Relaxed;
  Scope scope = Scope::Gpu;
  LitmusOp::Rmw op = LitmusOp::Rmw::Exch;
  bool acquire = false, release = false;  // atom / red
};

struct EdgeDeco {
  Link link = Link::None;
  FenceKind fence = FenceKind::Sc;
  Scope scope = Scope::Gpu;
};

struct Decoration {
  std::vector<NodeDeco> node;      // per node
  std::vector<EdgeDeco> edge;      // per edge (program-order edges only)
  std::vector<ThreadPlace> place;  // per thread
};

bool is_rmw(const NodeDeco& d) { return d.access == Access::Atom || d.access == Access::Red; }
bool has_read(const Shape& s, const NodeDeco& d, int n) { return s.in(n) == Dir::R || s.out(n) == Dir::R || is_rmw(d); }
bool has_write(const Shape& s, const NodeDeco& d, int n) {
  return s.in(n) == Dir::W || s.out(n) == Dir::W || is_rmw(d);
}
// Whether the node's instruction writes a register (a load or an atom).
bool has_reg(const Shape& s, const NodeDeco& d, int n) {
  return d.access == Access::Atom || (d.access != Access::Red && s.in(n) == Dir::R && s.out(n) == Dir::R);
}
// A node a plain store implements.
bool is_store(const Shape& s, const NodeDeco& d, int n) {
  return !is_rmw(d) && s.in(n) == Dir::W && s.out(n) == Dir::W;
}

// ---------------------------------------------------------------------------------------------
// Values and the condition

// Per node, indices of writes are on the node's location, 1, 2, ... in coherence order; 0 is the
// initial value.
struct Valuation {
  std::vector<int> src;                     // per node: the write its read reads; -1 no read
  std::vector<char> pinned;                 // per node: `exists` gives the value its read reads
  std::vector<int> widx;                    // per node: its write; 0 no write
  std::vector<int> final_w;                 // per location: the write `exists` gives as final; 0 none
  std::vector<std::vector<int64_t>> value;  // per location: the value of each write (value[0] = 0)
};

// The order in which the cut of a one-location cycle is tried: cutting at an Fre edge makes its
// read read the initial value (CoRR: 1 then 0), the most familiar form; then program order, the
// other Fr edges, Rf and Co.
std::vector<int> cut_order(const Shape& s) {
  std::vector<int> order;
  auto take = [&](Rel r, bool ext) {
    for (int i = 0; i < s.nodes(); ++i)
      if (s.edges[size_t(i)].rel == r && s.edges[size_t(i)].ext == ext) order.push_back(i);
  };
  take(Rel::Fr, true);
  take(Rel::Po, false);
  take(Rel::Fr, false);
  for (Rel r : {Rel::Rf, Rel::Co}) {
    take(r, true);
    take(r, false);
  }
  return order;
}

// Values along each location's path (the coherence order the cycle implies), the reads `exists`
// names, and the final values it needs so that every coherence edge of the cycle (Co, and the
// order Fr implies between the write a read reads and the Fr target) follows from the condition:
// either the later write is the final value, or it is an atom whose read `exists` pins to the
// earlier write (chains of both). False when the condition cannot show the cycle.
bool valuate(const Shape& s, const std::vector<NodeDeco>& d, int cut, Valuation* out) {
  const int N = s.nodes();
  Valuation v;
  v.src.assign(size_t(N), -1);
  v.pinned.assign(size_t(N), 0);
  v.widx.assign(size_t(N), 0);
  v.final_w.assign(size_t(s.locs), 0);
  v.value.resize(size_t(s.locs));
  std::vector<std::vector<int>> paths = s.paths;
  const bool one = s.one_location();
  if (one) {
    paths.assign(1, {});
    for (int k = 1; k <= N; ++k) paths[0].push_back((cut + k) % N);
  }
  for (size_t l = 0; l < paths.size(); ++l) {
    const std::vector<int>& p = paths[l];
    int k = 0;
    for (int n : p) {
      if (has_read(s, d[size_t(n)], n)) v.src[size_t(n)] = k;
      if (has_write(s, d[size_t(n)], n)) v.widx[size_t(n)] = ++k;
    }
    const int wrap = one ? cut : -1;  // the edge from the last node of the path to the first
    if (wrap >= 0) {
      const int a = wrap, b = (wrap + 1) % N;
      const Edge& e = s.edges[size_t(wrap)];
      if (e.rel == Rel::Rf) v.src[size_t(b)] = v.widx[size_t(a)];
      if (e.rel == Rel::Fr) {
        // The read is before the first write in coherence: it reads the initial value, which
        // an Rf edge into it contradicts.
        if (s.in_edge(a).rel == Rel::Rf) return false;
        v.src[size_t(a)] = v.widx[size_t(b)] - 1;
      }
    }
    std::vector<std::pair<int, int>> need, shown;
    for (size_t i = 0; i < p.size(); ++i) {
      const int n = p[i];
      const Edge& ein = s.in_edge(n);
      const Edge& eout = s.edges[size_t(n)];
      const bool out_here = i + 1 < p.size() || wrap >= 0;
      const int m = i + 1 < p.size() ? p[i + 1] : p[0];
      if (v.src[size_t(n)] >= 0)
        v.pinned[size_t(n)] = ein.rel == Rel::Rf || eout.rel == Rel::Fr || d[size_t(n)].access == Access::Atom;
      if (out_here && eout.rel == Rel::Fr) need.push_back({v.src[size_t(n)], v.widx[size_t(m)]});
      if (out_here && eout.rel == Rel::Co) need.push_back({v.widx[size_t(n)], v.widx[size_t(m)]});
      if (d[size_t(n)].access == Access::Atom && v.src[size_t(n)] > 0)
        shown.push_back({v.src[size_t(n)], v.widx[size_t(n)]});
    }
    std::vector<int> finals{0};
    if (wrap >= 0 && s.edges[size_t(wrap)].rel == Rel::Co) finals.push_back(v.widx[size_t((wrap + 1) % N)]);
    if (k > 0) finals.push_back(k);
    bool ok = false;
    for (int f : finals) {
      std::vector<std::vector<char>> reach(size_t(k + 1), std::vector<char>(size_t(k + 1), 0));
      for (auto [a, b] : shown) reach[size_t(a)][size_t(b)] = 1;
      if (f > 0)
        for (int j = 1; j <= k; ++j)
          if (j != f) reach[size_t(j)][size_t(f)] = 1;
      for (int c = 0; c <= k; ++c)
        for (int a = 0; a <= k; ++a)
          if (reach[size_t(a)][size_t(c)])
            for (int b = 0; b <= k; ++b)
              if (reach[size_t(c)][size_t(b)]) reach[size_t(a)][size_t(b)] = 1;
      ok = true;
      for (auto [a, b] : need) ok &= a != b && (a == 0 || reach[size_t(a)][size_t(b)]);
      if (ok) {
        v.final_w[l] = f;
        break;
      }
    }
    if (!ok) return false;
    // Distinct values in coherence order; 1, 3, 7, 15 where a red writes (each red adds a power
    // of two, so a red that read another write than the cycle's writes no other write's value).
    bool red = false;
    for (int n : p) red |= d[size_t(n)].access == Access::Red;
    v.value[l].assign(size_t(k) + 1, 0);
    for (int j = 1; j <= k; ++j) v.value[l][size_t(j)] = red ? (int64_t(1) << j) - 1 : j;
  }
  *out = std::move(v);
  return true;
}

int64_t read_value(const Shape& s, const Valuation& v, int n) {
  return v.value[size_t(s.loc_of[size_t(n)])][size_t(v.src[size_t(n)])];
}
int64_t write_value(const Shape& s, const Valuation& v, int n) {
  return v.value[size_t(s.loc_of[size_t(n)])][size_t(v.widx[size_t(n)])];
}

// ---------------------------------------------------------------------------------------------
// Choosing decorations

// What a variant of a cycle stresses: one kind of access, fence or dependency throughout, or
// a random mix. The classic shapes go through the whole list in turn.
enum class Focus : uint8_t {
  Random,
  Relaxed,
  RelAcq,
  Weak,
  Volatile,
  AtomAdd,
  AtomExch,
  AtomCas,
  Red,
  Fence,
  Dep,
  Data
};
struct FocusItem {
  Focus focus = Focus::Random;
  FenceKind fence = FenceKind::Sc;
  Scope scope = Scope::Gpu;
};

std::vector<FocusItem> focus_list() {
  std::vector<FocusItem> f{{Focus::Relaxed}, {Focus::RelAcq}, {Focus::Random}};
  for (FenceKind k : {FenceKind::Sc, FenceKind::AcqRel, FenceKind::Release, FenceKind::Acquire})
    for (Scope sc : {Scope::Cta, Scope::Gpu, Scope::Sys}) f.push_back({Focus::Fence, k, sc});
  for (Focus x : {Focus::Weak, Focus::Volatile, Focus::AtomAdd, Focus::AtomExch, Focus::AtomCas, Focus::Red, Focus::Dep,
                  Focus::Data, Focus::Random, Focus::RelAcq, Focus::Random})
    f.push_back({x});
  return f;
}

const Scope kScopes[] = {Scope::Cta, Scope::Gpu, Scope::Sys};
const FenceKind kFences[] = {FenceKind::Sc, FenceKind::AcqRel, FenceKind::Acquire, FenceKind::Release};
const LitmusOp::Rmw kRmws[] = {LitmusOp::Rmw::Add, LitmusOp::Rmw::Exch, LitmusOp::Rmw::Cas};

Scope any_scope(Rng& rng) { return kScopes[rng.below(3)]; }

NodeDeco atom_deco(Rng& rng, LitmusOp::Rmw op) {
  NodeDeco d;
  d.access = Access::Atom;
  d.op = op;
  const size_t sem = rng.below(4);  // relaxed, acquire, release, acq_rel
  d.acquire = sem == 1 || sem == 3;
  d.release = sem == 2 || sem == 3;
  d.scope = any_scope(rng);
  return d;
}

// A random access for a node reading (R), writing (W) or both (an atom); rmw: whether atom and
// red may be chosen.
NodeDeco random_access(Rng& rng, Dir in, Dir out, bool rmw) {
  if (in != out) return atom_deco(rng, kRmws[rng.below(3)]);
  NodeDeco d;
  d.scope = any_scope(rng);
  if (in == Dir::R) {
    const Access a[] = {Access::Weak, Access::Relaxed, Access::Acquire, Access::Volatile, Access::Atom};
    d.access = a[rng.weighted({10, 30, 30, 8, rmw ? 22 : 0})];
  } else {
    const Access a[] = {Access::Weak, Access::Relaxed, Access::Release, Access::Volatile, Access::Atom, Access::Red};
    d.access = a[rng.weighted({10, 30, 30, 8, rmw ? 12 : 0, rmw ? 10 : 0})];
  }
  if (d.access == Access::Atom) return atom_deco(rng, kRmws[rng.below(3)]);
  if (d.access == Access::Red) {
    d.op = LitmusOp::Rmw::Add;
    d.release = rng.percent(50);
  }
  return d;
}

EdgeDeco random_fence(Rng& rng) {
  EdgeDeco e;
  e.link = Link::Fence;
  e.fence = kFences[rng.below(4)];
  e.scope = any_scope(rng);
  return e;
}

enum class Placement : uint8_t { Warp, Cta, Gpu, Mixed, Host };

// Where the threads run. Mixed: some threads share a block (and maybe a warp), not all.
std::vector<ThreadPlace> make_places(Placement kind, int threads, Rng& rng, const GenerateOptions& opt) {
  std::vector<ThreadPlace> p(static_cast<size_t>(threads));
  if (kind == Placement::Host) {
    const int h = int(rng.below(size_t(threads)));
    std::vector<Placement> rest;
    if (opt.warp) rest.push_back(Placement::Warp);
    if (opt.cta) rest.push_back(Placement::Cta);
    if (opt.gpu || rest.empty()) rest.push_back(Placement::Gpu);
    if (opt.mixed && threads - 1 >= 3) rest.push_back(Placement::Mixed);
    const std::vector<ThreadPlace> gp = make_places(rest[rng.below(rest.size())], threads - 1, rng, opt);
    for (int t = 0, g = 0; t < threads; ++t) {
      if (t == h)
        p[size_t(t)].host = true;
      else
        p[size_t(t)] = gp[size_t(g++)];
    }
    return p;
  }
  for (int t = 0; t < threads; ++t) {
    p[size_t(t)].cta = kind == Placement::Gpu ? uint32_t(t) : 0;
    p[size_t(t)].warp = kind == Placement::Cta ? uint32_t(t) : 0;
  }
  if (kind != Placement::Mixed) return p;
  // Blocks: not all one, not all different; then warps within each block, numbered in order.
  std::vector<uint32_t> block(static_cast<size_t>(threads));
  for (;;) {
    std::set<uint32_t> used;
    for (int t = 0; t < threads; ++t) used.insert(block[size_t(t)] = uint32_t(rng.below(size_t(threads))));
    if (used.size() > 1 && int(used.size()) < threads) break;
  }
  std::vector<int> block_num(size_t(threads), -1), next_warp;
  int blocks = 0;
  std::vector<std::vector<int>> warp_of(static_cast<size_t>(threads));  // per block: raw warp -> number
  for (int t = 0; t < threads; ++t) {
    int& b = block_num[size_t(block[size_t(t)])];
    if (b < 0) {
      b = blocks++;
      next_warp.push_back(0);
      warp_of[size_t(b)].assign(size_t(threads), -1);
    }
    int& w = warp_of[size_t(b)][rng.below(2)];  // a warp of two: threads of a block share one or not
    if (w < 0) w = next_warp[size_t(b)]++;
    p[size_t(t)].cta = uint32_t(b);
    p[size_t(t)].warp = uint32_t(w);
  }
  return p;
}

Decoration decorate(const Shape& s, const FocusItem& focus, Rng& rng, std::vector<ThreadPlace> place) {
  const int N = s.nodes();
  Decoration d;
  d.node.resize(size_t(N));
  d.edge.resize(size_t(N));
  d.place = std::move(place);
  const Scope scope = any_scope(rng);
  std::vector<int> writers;  // nodes a store implements
  for (int n = 0; n < N; ++n)
    if (s.in(n) == Dir::W && s.out(n) == Dir::W) writers.push_back(n);
  bool po_edges = false;
  for (const Edge& e : s.edges) po_edges |= e.rel == Rel::Po;
  Focus f = focus.focus;
  if ((f == Focus::Red && writers.empty()) || (f == Focus::Fence && !po_edges)) f = Focus::Random;

  for (int n = 0; n < N; ++n) {
    NodeDeco& nd = d.node[size_t(n)];
    const Dir in = s.in(n), out = s.out(n);
    switch (f) {
      case Focus::Relaxed:
      case Focus::RelAcq:
      case Focus::Volatile:
      case Focus::Weak:
        if (in != out) {
          nd = atom_deco(rng, kRmws[rng.below(3)]);
          nd.scope = scope;
          nd.acquire = nd.release = f == Focus::RelAcq;
          if (f == Focus::Relaxed || f == Focus::Volatile) nd.acquire = nd.release = false;
          break;
        }
        nd.scope = scope;
        nd.access = f == Focus::Relaxed    ? Access::Relaxed
                    : f == Focus::Weak     ? Access::Weak
                    : f == Focus::Volatile ? Access::Volatile
                    : in == Dir::R         ? Access::Acquire
                                           : Access::Release;
        break;
      case Focus::Fence:
        nd = random_access(rng, in, out, false);
        if (in == out) nd.access = rng.percent(25) ? Access::Weak : Access::Relaxed;
        break;
      case Focus::AtomAdd:
      case Focus::AtomExch:
      case Focus::AtomCas: {
        const LitmusOp::Rmw op = f == Focus::AtomAdd    ? LitmusOp::Rmw::Add
                                 : f == Focus::AtomExch ? LitmusOp::Rmw::Exch
                                                        : LitmusOp::Rmw::Cas;
        nd = in != out || rng.percent(50) ? atom_deco(rng, op) : random_access(rng, in, out, false);
        break;
      }
      case Focus::Red:
        nd = random_access(rng, in, out, false);
        if (in == Dir::W && out == Dir::W && rng.percent(60)) {
          nd.access = Access::Red;
          nd.op = LitmusOp::Rmw::Add;
          nd.release = rng.percent(50);
          nd.acquire = false;
        }
        break;
      default: nd = random_access(rng, in, out, true); break;
    }
  }
  // The focus access at least once.
  if (f == Focus::AtomAdd || f == Focus::AtomExch || f == Focus::AtomCas) {
    bool any = false;
    for (const NodeDeco& nd : d.node) any |= nd.access == Access::Atom;
    if (!any) {
      const int n = int(rng.below(size_t(N)));
      d.node[size_t(n)] = atom_deco(rng, f == Focus::AtomAdd    ? LitmusOp::Rmw::Add
                                         : f == Focus::AtomExch ? LitmusOp::Rmw::Exch
                                                                : LitmusOp::Rmw::Cas);
    }
  }
  if (f == Focus::Red) {
    bool any = false;
    for (const NodeDeco& nd : d.node) any |= nd.access == Access::Red;
    if (!any) {
      NodeDeco& nd = d.node[size_t(writers[rng.below(writers.size())])];
      nd.access = Access::Red;
      nd.op = LitmusOp::Rmw::Add;
      nd.acquire = false;
      nd.release = rng.percent(50);
    }
  }
  // Program-order edges.
  for (int i = 0; i < N; ++i) {
    const Edge& e = s.edges[size_t(i)];
    if (e.rel != Rel::Po) continue;
    EdgeDeco& ed = d.edge[size_t(i)];
    const bool dep_ok = has_reg(s, d.node[size_t(i)], i);
    const int next = (i + 1) % N;
    switch (f) {
      case Focus::Fence:
        ed.link = Link::Fence;
        ed.fence = focus.fence;
        ed.scope = focus.scope;
        break;
      case Focus::Weak:
        if (rng.percent(50)) ed = random_fence(rng);
        break;
      case Focus::Dep:
      case Focus::Data:
        if (dep_ok) ed.link = f == Focus::Data && is_store(s, d.node[size_t(next)], next) ? Link::Data : Link::Dep;
        break;
      case Focus::Random: {
        const size_t k = rng.weighted({50, 30, dep_ok ? 20 : 0});
        if (k == 1) ed = random_fence(rng);
        if (k == 2) ed.link = is_store(s, d.node[size_t(next)], next) && rng.percent(40) ? Link::Data : Link::Dep;
        break;
      }
      case Focus::Relaxed: break;  // the plain test of the shape, as diy's `po` variants
      default:
        if (rng.percent(15)) ed = random_fence(rng);
        break;
    }
  }
  // The host's strong accesses and fences use sys scope.
  for (int n = 0; n < N; ++n) {
    if (!d.place[size_t(s.thread_of[size_t(n)])].host) continue;
    d.node[size_t(n)].scope = Scope::Sys;
    if (d.edge[size_t(n)].link == Link::Fence) d.edge[size_t(n)].scope = Scope::Sys;
  }
  return d;
}

// ---------------------------------------------------------------------------------------------
// The test's text and name

const char* sem_name(const NodeDeco& d) {
  return d.acquire && d.release ? "acq_rel" : d.acquire ? "acquire" : d.release ? "release" : "relaxed";
}
const char* rmw_name(LitmusOp::Rmw op) {
  return op == LitmusOp::Rmw::Add ? "add" : op == LitmusOp::Rmw::Exch ? "exch" : "cas";
}

std::string node_token(const NodeDeco& d) {
  const char* S = scope_name(d.scope);
  switch (d.access) {
    case Access::Weak: return "p";
    case Access::Relaxed: return fmt::format("rlx.{}", S);
    case Access::Acquire: return fmt::format("acq.{}", S);
    case Access::Release: return fmt::format("rel.{}", S);
    case Access::Volatile: return "vol";
    case Access::Atom: {
      const char* sem = d.acquire && d.release ? ".acqrel" : d.acquire ? ".acq" : d.release ? ".rel" : "";
      return fmt::format("{}{}.{}", rmw_name(d.op), sem, S);
    }
    case Access::Red: return fmt::format("red{}.{}", d.release ? ".rel" : "", S);
  }
  return "?";
}

const char* fence_token(FenceKind k) {
  switch (k) {
    case FenceKind::Sc: return "fsc";
    case FenceKind::AcqRel: return "facqrel";
    case FenceKind::Acquire: return "facq";
    case FenceKind::Release: return "frel";
  }
  return "f";
}

std::string link_token(const Edge& e, const EdgeDeco& d) {
  if (e.rel != Rel::Po) {
    std::string n = edge_name(e);
    n[0] = char(std::tolower(static_cast<unsigned char>(n[0])));
    return n;
  }
  switch (d.link) {
    case Link::None: return "po";
    case Link::Fence: return fmt::format("{}.{}", fence_token(d.fence), scope_name(d.scope));
    case Link::Dep: return "dep";
    case Link::Data: return "data";
  }
  return "?";
}

// The edge as the `source` line shows it: Pod/Pos edges with their decoration.
std::string decorated_edge(const Edge& e, const EdgeDeco& d) {
  if (e.rel != Rel::Po || d.link == Link::None) return edge_name(e);
  const char sd = e.same_loc ? 's' : 'd';
  switch (d.link) {
    case Link::Fence:
      return fmt::format("Fence.{}.{}.{}{}{}", fence_name(d.fence), scope_name(d.scope), sd, dir_char(e.src),
                         dir_char(e.dst));
    case Link::Dep: return fmt::format("Dp{}{}", sd, dir_char(e.dst));
    case Link::Data: return fmt::format("DpData{}{}", sd, dir_char(e.dst));
    default: return edge_name(e);
  }
}

std::string placement_token(const std::vector<ThreadPlace>& p) {
  bool host = false, one_cta = true, one_warp = true, all_ctas = true;
  std::set<uint32_t> ctas;
  for (const ThreadPlace& t : p) {
    host |= t.host;
    one_cta &= t.cta == p[0].cta;
    one_warp &= t.cta == p[0].cta && t.warp == p[0].warp;
    all_ctas &= ctas.insert(t.cta).second;
  }
  if (!host && one_warp) return "warp";
  if (!host && one_cta) {
    std::set<uint32_t> warps;
    bool distinct = true;
    for (const ThreadPlace& t : p) distinct &= warps.insert(t.warp).second;
    if (distinct) return "cta";
  }
  if (!host && all_ctas) return "gpu";
  std::string s;
  for (const ThreadPlace& t : p) s += t.host ? std::string("h") : fmt::format("{}{}", char('a' + t.cta), t.warp);
  return s;
}

Placement placement_kind(const std::vector<ThreadPlace>& p) {
  for (const ThreadPlace& t : p)
    if (t.host) return Placement::Host;
  const std::string tok = placement_token(p);
  return tok == "warp"  ? Placement::Warp
         : tok == "cta" ? Placement::Cta
         : tok == "gpu" ? Placement::Gpu
                        : Placement::Mixed;
}

struct Built {
  std::string name, body, cycle;
};

// The test's threads and `exists` as text (the parser's normal form), its name and its cycle.
Built build_text(const Shape& s, const Decoration& d, const Valuation& v) {
  const int N = s.nodes();
  // Locations named in order of first use, registers numbered per thread.
  std::vector<std::string> loc_name(size_t(s.locs));
  const char* names[] = {"x", "y", "z", "w", "a", "b", "c", "d", "e", "f"};
  int named = 0;
  std::vector<int> reg(size_t(N), -1);
  for (const auto& prog : s.program) {
    int regs = 0;
    for (int n : prog) {
      std::string& ln = loc_name[size_t(s.loc_of[size_t(n)])];
      if (ln.empty()) ln = names[named++];
      if (has_reg(s, d.node[size_t(n)], n)) reg[size_t(n)] = regs++;
    }
  }
  Built b;
  std::string exists;
  for (int t = 0; t < s.threads; ++t) {
    const ThreadPlace& pl = d.place[size_t(t)];
    b.body +=
        pl.host ? fmt::format("thread {} host\n", t) : fmt::format("thread {} cta {} warp {}\n", t, pl.cta, pl.warp);
    const std::vector<int>& prog = s.program[size_t(t)];
    for (size_t i = 0; i < prog.size(); ++i) {
      const int n = prog[i];
      const NodeDeco& nd = d.node[size_t(n)];
      const EdgeDeco* link = i > 0 ? &d.edge[size_t(prog[i - 1])] : nullptr;
      if (link && link->link == Link::Fence)
        b.body += fmt::format("  fence.{}.{}\n", fence_name(link->fence), scope_name(link->scope));
      const std::string L = "[" + loc_name[size_t(s.loc_of[size_t(n)])] + "]";
      const char* S = scope_name(nd.scope);
      std::string q;
      if (nd.access == Access::Relaxed) q = fmt::format(".relaxed.{}", S);
      if (nd.access == Access::Acquire) q = fmt::format(".acquire.{}", S);
      if (nd.access == Access::Release) q = fmt::format(".release.{}", S);
      if (nd.access == Access::Volatile) q = ".volatile";
      std::string ins;
      if (nd.access == Access::Atom || nd.access == Access::Red) {
        const int64_t rv = read_value(s, v, n), wv = write_value(s, v, n);
        std::string operands;
        if (nd.op == LitmusOp::Rmw::Add) operands = fmt::format("{}", wv - rv);
        if (nd.op == LitmusOp::Rmw::Exch) operands = fmt::format("{}", wv);
        if (nd.op == LitmusOp::Rmw::Cas) operands = fmt::format("{}, {}", rv, wv);
        if (nd.access == Access::Atom)
          ins =
              fmt::format("r{} = atom.{}.{}.{} {}, {}", reg[size_t(n)], sem_name(nd), S, rmw_name(nd.op), L, operands);
        else
          ins = fmt::format("red.{}.{}.add {}, {}", sem_name(nd), S, L, operands);
      } else if (has_reg(s, nd, n)) {
        ins = fmt::format("r{} = ld{} {}", reg[size_t(n)], q, L);
      } else {
        const bool data = link && link->link == Link::Data;
        ins = data ? fmt::format("st{} {}, r{}", q, L, reg[size_t(prog[i - 1])])
                   : fmt::format("st{} {}, {}", q, L, write_value(s, v, n));
      }
      if (link && link->link == Link::Dep) ins += fmt::format(" dep r{}", reg[size_t(prog[i - 1])]);
      b.body += "  " + ins + "\n";
      if (v.pinned[size_t(n)])
        exists += fmt::format("{}{}:r{}={}", exists.empty() ? "" : " & ", t, reg[size_t(n)], read_value(s, v, n));
    }
  }
  // Final values, in the order the locations are named.
  std::vector<int> by_name(size_t(s.locs));
  for (int l = 0; l < s.locs; ++l) by_name[size_t(l)] = l;
  std::sort(by_name.begin(), by_name.end(), [&](int a, int c) {
    return std::find(std::begin(names), std::end(names), loc_name[size_t(a)]) <
           std::find(std::begin(names), std::end(names), loc_name[size_t(c)]);
  });
  for (int l : by_name)
    if (v.final_w[size_t(l)] > 0)
      exists += fmt::format("{}{}={}", exists.empty() ? "" : " & ", loc_name[size_t(l)],
                            v.value[size_t(l)][size_t(v.final_w[size_t(l)])]);
  b.body += "exists " + exists + "\n";

  b.name = s.classic >= 0 ? kClassics[s.classic].name : s.family;
  for (const auto& prog : s.program) {
    std::string tok;
    for (size_t i = 0; i < prog.size(); ++i) {
      if (i > 0) tok += "_" + link_token(s.edges[size_t(prog[i - 1])], d.edge[size_t(prog[i - 1])]) + "_";
      tok += node_token(d.node[size_t(prog[i])]);
    }
    b.name += "+" + tok;
  }
  b.name += "+" + placement_token(d.place);
  for (int i = 0; i < N; ++i) b.cycle += (i ? " " : "") + decorated_edge(s.edges[size_t(i)], d.edge[size_t(i)]);
  return b;
}

// ---------------------------------------------------------------------------------------------
// Cost and features

uint64_t factorial(size_t n) {
  uint64_t f = 1;
  for (size_t i = 2; i <= n; ++i) f *= i;
  return f;
}

// An estimate of the enumerator's work on a test (enumerate.cpp): every choice of the write each
// read reads, times the coherence orders (strict partial orders) of each location's writes and
// the orders of the fence.sc, plus building those coherence orders once per choice of reads.
uint64_t estimate_cost(const LitmusTest& t) {
  struct Acc {
    uint32_t thread, index, loc;
  };
  std::vector<Acc> reads, writes;
  size_t scf = 0;
  for (uint32_t th = 0; th < t.threads.size(); ++th)
    for (uint32_t i = 0; i < t.threads[th].ops.size(); ++i) {
      const LitmusOp& op = t.threads[th].ops[i];
      if (op.kind == LitmusOp::Kind::Fence && op.fence == FenceKind::Sc) ++scf;
      if (op.kind == LitmusOp::Kind::Ld || op.kind == LitmusOp::Kind::Atom || op.kind == LitmusOp::Kind::Red)
        reads.push_back({th, i, op.loc});
      if (op.kind == LitmusOp::Kind::St || op.kind == LitmusOp::Kind::Atom || op.kind == LitmusOp::Kind::Red)
        writes.push_back({th, i, op.loc});
    }
  uint64_t rf = 1;
  for (const Acc& r : reads) {
    uint64_t c = 1;
    for (const Acc& w : writes)
      if (w.loc == r.loc && !(w.thread == r.thread && w.index >= r.index)) ++c;
    rf *= c;
  }
  const uint64_t orders[] = {1, 1, 3, 19, 219, 4231, 130023};
  const uint64_t build[] = {1, 1, 3, 27, 729, 59049, 14348907};
  uint64_t co = 1, co_build = 0;
  for (uint32_t l = 0; l < t.locs.size(); ++l) {
    size_t k = 0;
    for (const Acc& w : writes) k += w.loc == l;
    k = std::min<size_t>(k, 6);
    co *= orders[k];
    co_build += build[k];
  }
  return rf * (co * factorial(scf) + co_build);
}

using FeatureSet = std::set<std::pair<std::string, std::string>>;

FeatureSet features_of(const LitmusTest& t, const Shape& s) {
  FeatureSet f;
  for (const LitmusThread& th : t.threads)
    for (const LitmusOp& op : th.ops) {
      const std::string S = scope_name(op.scope);
      switch (op.kind) {
        case LitmusOp::Kind::Ld:
          f.insert({"access", op.is_volatile              ? "ld.volatile"
                              : op.scope == Scope::Thread ? "ld (weak)"
                              : op.acquire                ? "ld.acquire." + S
                                                          : "ld.relaxed." + S});
          break;
        case LitmusOp::Kind::St:
          f.insert({"access", op.is_volatile              ? "st.volatile"
                              : op.scope == Scope::Thread ? "st (weak)"
                              : op.release                ? "st.release." + S
                                                          : "st.relaxed." + S});
          if (op.value.is_reg) f.insert({"dependency", "data (register value)"});
          break;
        case LitmusOp::Kind::Atom:
        case LitmusOp::Kind::Red: {
          const bool atom = op.kind == LitmusOp::Kind::Atom;
          f.insert({"rmw", atom ? fmt::format("atom.{}", rmw_name(op.rmw)) : std::string("red.add")});
          NodeDeco nd;
          nd.acquire = op.acquire;
          nd.release = op.release;
          f.insert({"rmw", fmt::format("{}.{}", atom ? "atom" : "red", sem_name(nd))});
          f.insert({"rmw", fmt::format("{}.{}", atom ? "atom" : "red", S)});
          break;
        }
        case LitmusOp::Kind::Fence: f.insert({"fence", fmt::format("fence.{}.{}", fence_name(op.fence), S)}); break;
        case LitmusOp::Kind::Bar: break;
      }
      if (!op.deps.empty()) f.insert({"dependency", "dep"});
    }
  std::vector<ThreadPlace> places;
  for (const LitmusThread& th : t.threads) places.push_back(th.place);
  const char* pk[] = {"one warp", "one block", "a block each", "mixed", "host thread"};
  f.insert({"placement", pk[int(placement_kind(places))]});
  f.insert({"threads", fmt::format("{}", t.threads.size())});
  if (s.classic >= 0) f.insert({"cycle", fmt::format("classic {}", kClassics[s.classic].name)});
  f.insert({"cycle", s.critical ? "critical" : "not critical"});
  if (s.internal_com) f.insert({"cycle", "internal Rfi/Fri/Coi"});
  if (s.rmw_node) f.insert({"cycle", "atom joining two edges"});
  if (s.one_location()) f.insert({"cycle", "one location"});
  return f;
}

}  // namespace

std::vector<LitmusTest> generate_litmus(const GenerateOptions& opt, GenerateStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  GenerateStats st;
  const int max_threads = std::clamp(opt.max_threads, 2, 4);
  const int max_ops = std::clamp(opt.max_ops, 1, 4);

  // The cycles, each with a cut that gives values (one-location cycles) and a condition that
  // shows every edge, with the plainest decorations.
  std::map<std::vector<int>, int> classic_of;
  for (int i = 0; i < kNumClassics; ++i) {
    const std::vector<Edge> c = canonical(parse_cycle(kClassics[i].cycle));
    classic_of[rotation_codes(c, 0)] = i;
  }
  std::vector<Shape> classics(static_cast<size_t>(kNumClassics)), others;
  std::vector<char> have_classic(static_cast<size_t>(kNumClassics), 0);
  for (const std::vector<Edge>& c : CycleEnumerator(max_threads, max_ops).run()) {
    auto it = classic_of.find(rotation_codes(c, 0));
    Shape s = make_shape(it == classic_of.end() ? c : parse_cycle(kClassics[it->second].cycle));
    if (it != classic_of.end()) s.classic = it->second;
    std::vector<NodeDeco> plain(size_t(s.nodes()));
    for (int n = 0; n < s.nodes(); ++n)
      if (s.in(n) != s.out(n)) plain[size_t(n)].access = Access::Atom;
    Valuation v;
    bool ok = false;
    if (s.one_location()) {
      for (int cut : cut_order(s))
        if (valuate(s, plain, cut, &v)) {
          s.cut = cut;
          ok = true;
          break;
        }
    } else {
      ok = valuate(s, plain, -1, &v);
    }
    if (!ok) continue;
    ++st.cycles;
    if (s.classic >= 0) {
      classics[size_t(s.classic)] = s;
      have_classic[size_t(s.classic)] = 1;
    } else {
      others.push_back(s);
    }
  }
  std::vector<Shape> shapes;
  for (int i = 0; i < kNumClassics; ++i)
    if (have_classic[size_t(i)]) shapes.push_back(classics[size_t(i)]);
  st.classic_cycles = shapes.size();
  // The other cycles in groups, each in a seeded order: critical cycles, other cycles over
  // several locations, those with an internal communication edge, those with an atom joining two
  // edges, and one-location cycles; by size within each.
  enum Kind { kCritical, kPlain, kInternal, kRmwNode, kOneLocation };
  auto kind_of = [](const Shape& s) {
    return s.one_location() ? kOneLocation
           : s.critical     ? kCritical
           : s.internal_com ? kInternal
           : s.rmw_node     ? kRmwNode
                            : kPlain;
  };
  std::map<std::pair<int, int>, std::vector<int>> groups;  // (kind, accesses) -> shape indices
  const size_t first_other = shapes.size();
  for (Shape& s : others) {
    groups[{kind_of(s), s.nodes()}].push_back(int(shapes.size()));
    shapes.push_back(std::move(s));
  }
  {
    Rng rng(mix(opt.seed, 0x5eed));
    for (auto& [key, idx] : groups)
      for (size_t i = idx.size(); i > 1; --i) std::swap(idx[i - 1], idx[rng.below(i)]);
  }
  // Tests per round (in tenths) from each group, besides one of each classic shape: about 40%
  // classic shapes, 20% other critical cycles, 20% other cycles over several locations and a few
  // of each of the rest; larger critical cycles are more numerous, larger others harder to read.
  auto weight = [](const std::pair<int, int>& key) {
    const int n = key.second;
    switch (key.first) {
      case kCritical: return n <= 4 ? 30 : n == 5 ? 50 : 60;
      case kPlain: return n <= 4 ? 20 : n <= 6 ? 30 : 20;
      case kInternal: return 6;
      case kRmwNode: return 5;
      default: return 6;
    }
  };
  std::map<std::pair<int, int>, int> credit;

  const std::vector<FocusItem> focuses = focus_list();
  std::vector<Placement> placements;
  std::vector<int> placement_weights;
  auto add_place = [&](bool on, Placement p, int w) {
    if (on) {
      placements.push_back(p);
      placement_weights.push_back(w);
    }
  };
  add_place(opt.warp, Placement::Warp, 20);
  add_place(opt.cta, Placement::Cta, 20);
  add_place(opt.gpu || !(opt.warp || opt.cta || opt.mixed || opt.host), Placement::Gpu, 30);
  add_place(opt.mixed, Placement::Mixed, 30);
  add_place(opt.host, Placement::Host, 2);

  std::vector<LitmusTest> tests;
  std::unordered_set<std::string> bodies, names;
  std::vector<int> visits(shapes.size(), 0);
  std::map<std::pair<int, int>, size_t> cursor;

  // One variant of one cycle: decorate, give values, enumerate; true when it became a test.
  auto attempt = [&](int si) {
    const Shape& s = shapes[size_t(si)];
    const int r = visits[size_t(si)]++;
    Rng rng(mix(opt.seed, uint64_t(si) * 1000003u + uint64_t(r)));
    FocusItem focus;
    if (s.classic >= 0)
      focus = focuses[size_t(r) % focuses.size()];
    else
      focus = rng.percent(40) ? FocusItem{} : focuses[rng.below(focuses.size())];
    // Placement: mixed needs three threads; the first variant of a classic shape is the plain
    // one, relaxed at gpu scope with a block per thread.
    std::vector<Placement> pls;
    std::vector<int> pws;
    for (size_t i = 0; i < placements.size(); ++i)
      if (placements[i] != Placement::Mixed || s.threads >= 3) {
        pls.push_back(placements[i]);
        pws.push_back(placement_weights[i]);
      }
    if (pls.empty()) return false;  // only mixed placements asked for, and two threads
    Placement pk = pls[rng.weighted(pws)];
    if (s.classic >= 0 && r == 0) {
      focus = {Focus::Relaxed};
      if (opt.gpu) pk = Placement::Gpu;
    }
    Decoration d = decorate(s, focus, rng, make_places(pk, s.threads, rng, opt));
    if (s.classic >= 0 && r == 0 && pk != Placement::Host)
      for (NodeDeco& nd : d.node) nd.scope = Scope::Gpu;
    // Values. An add or red whose cycle value is not above the value it reads becomes an exch (a
    // one-location cycle can read a later write), and of two reds in a row the second becomes an
    // atom; then the values again.
    Valuation v;
    int cut = s.cut;
    bool ok = false;
    for (int pass = 0; pass < 3 && !ok; ++pass) {
      bool valued = valuate(s, d.node, cut, &v);
      if (!valued && s.one_location())
        for (int c : cut_order(s))
          if (valuate(s, d.node, c, &v)) {
            cut = c;
            valued = true;
            break;
          }
      if (!valued) break;
      bool changed = false;
      std::map<std::pair<int, int>, int> writer;  // (location, write index) -> node
      for (int n = 0; n < s.nodes(); ++n)
        if (v.widx[size_t(n)] > 0) writer[{s.loc_of[size_t(n)], v.widx[size_t(n)]}] = n;
      for (int n = 0; n < s.nodes(); ++n) {
        NodeDeco& nd = d.node[size_t(n)];
        if (is_rmw(nd) && nd.op == LitmusOp::Rmw::Add && write_value(s, v, n) <= read_value(s, v, n)) {
          nd.access = Access::Atom;
          nd.op = LitmusOp::Rmw::Exch;
          changed = true;
        }
        // Two reds in a row in coherence order add up to the same value in either order, so
        // nothing would show which came first: the second becomes an atom, whose read `exists`
        // pins.
        auto prev = writer.find({s.loc_of[size_t(n)], v.widx[size_t(n)] - 1});
        if (nd.access == Access::Red && prev != writer.end() && d.node[size_t(prev->second)].access == Access::Red) {
          nd.access = Access::Atom;
          changed = true;
        }
      }
      ok = !changed;
    }
    if (!ok) {
      ++st.not_expressible;
      return false;
    }
    // A data link stores its register, so the store's value must be the one `exists` pins the
    // register to (not 0, the initial value). Where it is not, the store's location trades
    // values with the write that has it (or takes it), unless an rmw there computes its operand
    // from the values; links it cannot serve become plain dependencies.
    auto data_ok = [&](int i) {
      const int next = (i + 1) % s.nodes();
      return is_store(s, d.node[size_t(next)], next) && v.pinned[size_t(i)] && read_value(s, v, i) != 0 &&
             read_value(s, v, i) == write_value(s, v, next);
    };
    for (int i = 0; i < s.nodes(); ++i) {
      const int next = (i + 1) % s.nodes();
      if (d.edge[size_t(i)].link != Link::Data || data_ok(i) || s.edges[size_t(i)].same_loc || !v.pinned[size_t(i)] ||
          read_value(s, v, i) == 0 || !is_store(s, d.node[size_t(next)], next))
        continue;
      const int l = s.loc_of[size_t(next)];
      bool rmw_here = false;
      for (int n = 0; n < s.nodes(); ++n) rmw_here |= s.loc_of[size_t(n)] == l && is_rmw(d.node[size_t(n)]);
      if (rmw_here) continue;
      std::vector<int64_t>& vals = v.value[size_t(l)];
      auto have = std::find(vals.begin() + 1, vals.end(), read_value(s, v, i));
      int64_t& mine = vals[size_t(v.widx[size_t(next)])];
      if (have != vals.end())
        std::swap(*have, mine);
      else
        mine = read_value(s, v, i);
    }
    for (int i = 0; i < s.nodes(); ++i)
      if (d.edge[size_t(i)].link == Link::Data && !data_ok(i)) d.edge[size_t(i)].link = Link::Dep;
    Built b = build_text(s, d, v);
    if (!bodies.insert(b.body).second) {
      ++st.duplicates;
      return false;
    }
    LitmusTest t;
    try {
      t = parse_litmus("litmus t\n" + b.body, "generated")[0];
    } catch (const LitmusError& e) {
      // A bug of the generator: say so rather than hide it.
      std::fprintf(stderr, "synclab-litmus generate: %s in\n%s", e.what(), b.body.c_str());
      ++st.not_expressible;
      return false;
    }
    if (estimate_cost(t) > opt.max_cost) {
      ++st.too_costly;
      return false;
    }
    Enumeration en;
    try {
      EnumerateOptions eo;
      eo.max_candidates = 20 * opt.max_cost + 100000;
      en = enumerate_outcomes(t, eo);
    } catch (const LitmusError&) {
      ++st.enumerate_failed;
      return false;
    }
    bool allowed = false, sc = false;
    for (const Outcome& o : en.ptx) allowed |= satisfies(t, o);
    for (const Outcome& o : en.sc) sc |= satisfies(t, o);
    if (sc) {
      // The condition does not say that the cycle happened: drop the test, and count it.
      ++(s.critical ? st.critical_sc_reachable : st.other_sc_reachable);
      return false;
    }
    st.candidates += en.candidates;
    const size_t weak = en.weak().size();
    st.weak_outcomes += weak;
    st.with_weak += weak > 0;
    std::string name = b.name;
    for (int k = 2; !names.insert(name).second; ++k) name = fmt::format("{}'{}", b.name, k);
    t.name = name;
    t.file.clear();
    t.line = 0;
    t.sources.push_back(
        fmt::format("generated by synclab-litmus generate, cycle: {}{}", b.cycle, s.critical ? " (critical)" : ""));
    t.expect_allowed = allowed;
    ++(allowed ? st.allowed : st.forbidden);
    st.critical += s.critical;
    for (const auto& [group, feature] : features_of(t, s)) ++st.features[group][feature];
    tests.push_back(std::move(t));
    return true;
  };

  // Rounds over the groups until the count is reached or a long run of attempts gives nothing
  // new (a small set of cycles has only so many decorations).
  size_t idle = 0;
  auto try_shape = [&](int si) { idle = attempt(si) ? 0 : idle + 1; };
  while (tests.size() < opt.count && idle < 20000 && !shapes.empty()) {
    for (size_t i = 0; i < first_other && tests.size() < opt.count; ++i) try_shape(int(i));
    for (auto& [key, idx] : groups)
      for (credit[key] += weight(key); credit[key] >= 10 && tests.size() < opt.count; credit[key] -= 10)
        try_shape(idx[cursor[key]++ % idx.size()]);
  }
  st.tests = tests.size();
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (stats) *stats = std::move(st);
  return tests;
}

std::string generate_summary(const GenerateStats& s) {
  std::string o;
  o += fmt::format(
      "{} tests: {} expect allowed, {} expect forbidden; {} have weak (not sequentially consistent) "
      "outcomes ({} weak outcomes in all)\n",
      s.tests, s.allowed, s.forbidden, s.with_weak, s.weak_outcomes);
  o += fmt::format(
      "{} from critical cycles; {} cycles ({} classic shapes); {} candidate executions checked in {:.1f} s\n",
      s.critical, s.cycles, s.classic_cycles, s.candidates, s.seconds);
  o += fmt::format(
      "dropped: {} critical and {} other cycles whose `exists` a sequentially consistent execution reaches, "
      "{} duplicates, {} too costly to enumerate, {} whose condition cannot show the cycle, {} refused by "
      "the enumerator\n",
      s.critical_sc_reachable, s.other_sc_reachable, s.duplicates, s.too_costly, s.not_expressible, s.enumerate_failed);
  for (const auto& [group, fs] : s.features) {
    std::string line = fmt::format("{}:", group);
    size_t width = line.size();
    for (const auto& [f, n] : fs) {
      const std::string item = fmt::format(" {}={}", f, n);
      if (width + item.size() > 118) {
        line += "\n   ";
        width = 3;
      }
      line += item;
      width += item.size();
    }
    o += line + "\n";
  }
  return o;
}

int generate_command(const std::vector<std::string>& args) {
  GenerateOptions opt;
  std::string out;
  auto number = [](const std::string& s, uint64_t* v) {
    if (s.empty() || s.size() > 18 ||
        !std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return false;
    *v = std::stoull(s);
    return true;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has = i + 1 < args.size();
    uint64_t v = 0;
    if (a == "--count" && has && number(args[i + 1], &v))
      opt.count = size_t(v), ++i;
    else if (a == "--seed" && has && number(args[i + 1], &v))
      opt.seed = v, ++i;
    else if (a == "--max-threads" && has && number(args[i + 1], &v) && v >= 2 && v <= 4)
      opt.max_threads = int(v), ++i;
    else if (a == "--max-ops" && has && number(args[i + 1], &v) && v >= 1 && v <= 4)
      opt.max_ops = int(v), ++i;
    else if (a == "--max-cost" && has && number(args[i + 1], &v))
      opt.max_cost = v, ++i;
    else if (a == "--out" && has)
      out = args[++i];
    else if (a == "--placements" && has) {
      opt.warp = opt.cta = opt.gpu = opt.mixed = opt.host = false;
      std::string list = args[++i] + ",";
      for (size_t p = 0, q; (q = list.find(',', p)) != std::string::npos; p = q + 1) {
        const std::string w = list.substr(p, q - p);
        if (w == "warp")
          opt.warp = true;
        else if (w == "cta")
          opt.cta = true;
        else if (w == "gpu")
          opt.gpu = true;
        else if (w == "mixed")
          opt.mixed = true;
        else if (w == "host")
          opt.host = true;
        else {
          std::fprintf(stderr, "synclab-litmus generate: placement '%s' (warp, cta, gpu, mixed, host)\n", w.c_str());
          return 2;
        }
      }
    } else {
      std::fprintf(stderr,
                   "usage: synclab-litmus generate [--count N] [--seed S] [--out FILE] [--max-threads 2-4]\n"
                   "                               [--max-ops 1-4] [--placements warp,cta,gpu,mixed,host] "
                   "[--max-cost N]\n");
      return 2;
    }
  }
  GenerateStats st;
  const std::vector<LitmusTest> tests = generate_litmus(opt, &st);
  std::string text = fmt::format(
      "# {} litmus tests from synclab-litmus generate --count {} --seed {} (cycles of relaxation edges; "
      "sim/memory/oracle/generate.h)\n",
      tests.size(), opt.count, opt.seed);
  for (const LitmusTest& t : tests) text += "\n" + t.to_text();
  if (out.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
  } else {
    std::ofstream f(out, std::ios::binary);
    if (!f || !(f << text)) {
      std::fprintf(stderr, "synclab-litmus generate: cannot write %s\n", out.c_str());
      return 1;
    }
  }
  std::fputs(generate_summary(st).c_str(), stderr);
  return tests.empty() ? 1 : 0;
}

}  // namespace synclab::memory
