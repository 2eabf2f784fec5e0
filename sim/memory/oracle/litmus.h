// Litmus tests in SyncLab's text format (docs/litmus-format.md): reading, writing, and the
// events each instruction stands for.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/memory/oracle/execution.h"

namespace synclab::memory {

// A bad test file: what() is "FILE:LINE: what is wrong".
struct LitmusError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A value operand: a constant or a register of the thread (a data dependency).
struct LitmusValue {
  bool is_reg = false;
  int64_t value = 0;  // the constant, or the register number
};

struct LitmusOp {
  enum class Kind : uint8_t { Ld, St, Atom, Red, Fence, Bar } kind = Kind::Ld;
  enum class Rmw : uint8_t { Add, Exch, Cas } rmw = Rmw::Add;
  Scope scope = Scope::Thread;  // Thread: a weak (plain) access
  bool acquire = false;         // ld.acquire; atom.acquire / atom.acq_rel
  bool release = false;         // st.release; atom.release / atom.acq_rel
  bool is_volatile = false;     // ld.volatile / st.volatile (relaxed at sys scope)
  FenceKind fence = FenceKind::Sc;
  uint32_t loc = 0;
  int reg = -1;               // the register it writes (ld, atom), else -1
  LitmusValue value, value2;  // st/atom/red: the value (cas: the expected value, value2: the new one)
  std::vector<int> deps;      // `dep rK,...`: registers it depends on (beyond a register value)
  std::string text;           // the instruction as written (normalized)
  int line = 0;
};

struct LitmusThread {
  ThreadPlace place;
  std::vector<LitmusOp> ops;
  int regs = 0;  // registers r0..r(regs-1) are used
};

// One conjunct of `exists`: a register of a thread, or a location's final value.
struct LitmusCond {
  bool is_reg = true;
  uint32_t thread = 0;
  int reg = 0;
  uint32_t loc = 0;
  int64_t value = 0;
};

struct LitmusTest {
  std::string name;
  std::vector<std::string> sources;
  std::vector<std::string> locs;  // location names, by number
  std::vector<LitmusThread> threads;
  std::vector<LitmusCond> exists;
  std::optional<bool> expect_allowed;
  // `disagree TEXT`: the oracle is known to give the other verdict than `expect` (the published
  // one), for the reason TEXT.
  std::string disagree;
  // `gap RULE`: the simulator's relaxed model cannot produce the `exists` outcome (allowed), and
  // RULE (a rule's name from run_order.h, RunOrderLimits::relaxed()) is why: the table of
  // docs/memory-model.md. `synclab-litmus run` checks both.
  std::string gap;
  std::string file;
  int line = 0;
  // The test as text again (the writer's normal form), for files the generator writes.
  std::string to_text() const;
  // "1:r0=1 & 1:r1=0"
  std::string cond_text() const;
};

std::vector<LitmusTest> parse_litmus(const std::string& text, const std::string& file);
std::vector<LitmusTest> read_litmus_file(const std::string& path);

}  // namespace synclab::memory
