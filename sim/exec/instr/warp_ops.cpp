// Instruction semantics, warp-level operations: shfl, vote, match, redux, elect and activemask over
// the lanes that the warp model has synchronized.

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

void KernelRun::exec_warp_op(Warp& w, uint32_t act, const ptx::Instr& I) {
  const Operand& d = I.dst[0];
  switch (I.op) {
    case Op::Activemask:
      FOR_LANES(act)
      R[d.reg] = act;
      END_LANES
      return;
    case Op::Shfl: {
      uint64_t vals[32];
      FOR_LANES(act)
      vals[lane] = operand(w, lane, I.src[0]);
      END_LANES
      FOR_LANES(act)
      uint32_t b = uint32_t(operand(w, lane, I.src[1])) & 0x1f, c = uint32_t(operand(w, lane, I.src[2]));
      // c packs the segment mask (bits 8-12) and the clamp value (bits 0-4): PTX ISA, shfl.sync.
      uint32_t seg_mask = (c >> 8) & 0x1f, clamp = c & 0x1f;
      uint32_t max_lane = (uint32_t(lane) & seg_mask) | (clamp & ~seg_mask);
      uint32_t min_lane = uint32_t(lane) & seg_mask;
      int32_t j = lane;
      bool pval = true;
      switch (I.shfl) {
        case ptx::ShflMode::Up:
          j = lane - int32_t(b);
          pval = j >= int32_t(max_lane);
          break;
        case ptx::ShflMode::Down:
          j = lane + int32_t(b);
          pval = j <= int32_t(max_lane);
          break;
        case ptx::ShflMode::Bfly:
          j = lane ^ int32_t(b);
          pval = j <= int32_t(max_lane);
          break;
        case ptx::ShflMode::Idx:
          j = int32_t(min_lane | (b & ~seg_mask));
          pval = j <= int32_t(max_lane);
          break;
        default: break;
      }
      if (!pval) j = lane;
      // A source lane outside the member mask (or one that does not execute the shuffle) gives an
      // undefined value in CUDA; here the reading lane's own, and the sync checker says so.
      if (listen_.sync && I.nsrc > 3 && j != lane) {
        const uint32_t member = uint32_t(operand(w, lane, I.src[3]));
        if (!((member & act) >> (j & 31) & 1)) listen_.list.shfl_outside(w, lane, I, j & 31, member);
      }
      uint64_t v = ((act >> (j & 31)) & 1) ? vals[j & 31] : vals[lane];
      R[d.reg] = v;
      if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = pval;
      END_LANES
      return;
    }
    case Op::Vote: {
      uint32_t ballot = 0;
      FOR_LANES(act)
      if (operand(w, lane, I.src[0]) & 1) ballot |= 1u << lane;
      END_LANES
      FOR_LANES(act)
      uint32_t member = uint32_t(operand(w, lane, I.src[I.nsrc - 1])) & act;
      switch (I.vote) {
        case ptx::VoteMode::Ballot: R[d.reg] = ballot & member; break;
        case ptx::VoteMode::All: R[d.reg] = (ballot & member) == member; break;
        case ptx::VoteMode::Any: R[d.reg] = (ballot & member) != 0; break;
        case ptx::VoteMode::Uni: R[d.reg] = (ballot & member) == 0 || (ballot & member) == member; break;
        default: break;
      }
      END_LANES
      return;
    }
    case Op::Match: {
      uint64_t vals[32];
      FOR_LANES(act)
      vals[lane] = operand(w, lane, I.src[0]);
      END_LANES
      const bool wide = ptx::type_size(I.type) == 8;
      FOR_LANES(act)
      uint32_t member = uint32_t(operand(w, lane, I.src[I.nsrc - 1])) & act;
      uint32_t same = 0;
      for (uint32_t m = member; m; m &= m - 1) {
        int j = __builtin_ctz(m);
        bool eq = wide ? vals[j] == vals[lane] : uint32_t(vals[j]) == uint32_t(vals[lane]);
        if (eq) same |= 1u << j;
      }
      if (I.match == ptx::MatchMode::All) {
        bool all = same == member;
        R[d.reg] = all ? member : 0;
        if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = all;
      } else {
        R[d.reg] = same;
      }
      END_LANES
      return;
    }
    case Op::Redux: {
      // Each lane reduces over the lanes of its own member mask that execute with it (lanes of
      // one instruction may pass different masks: two halves of a warp reducing apart).
      uint32_t vals[32], member[32];
      const bool sgn = ptx::type_is_signed(I.type);
      FOR_LANES(act)
      vals[lane] = uint32_t(operand(w, lane, I.src[0]));
      member[lane] = (I.nsrc > 1 ? uint32_t(operand(w, lane, I.src[1])) : act) & act;
      END_LANES
      auto reduce = [&](uint32_t lanes) {
        uint32_t acc = vals[__builtin_ctz(lanes)];
        for (uint32_t m = lanes & (lanes - 1); m; m &= m - 1) {
          const uint32_t v = vals[__builtin_ctz(m)];
          switch (I.redux) {
            case ptx::ReduxOp::Add: acc += v; break;
            case ptx::ReduxOp::Min: acc = sgn ? uint32_t(std::min(int32_t(acc), int32_t(v))) : std::min(acc, v); break;
            case ptx::ReduxOp::Max: acc = sgn ? uint32_t(std::max(int32_t(acc), int32_t(v))) : std::max(acc, v); break;
            case ptx::ReduxOp::And: acc &= v; break;
            case ptx::ReduxOp::Or: acc |= v; break;
            case ptx::ReduxOp::Xor: acc ^= v; break;
            default: break;
          }
        }
        return acc;
      };
      uint32_t done_mask = 0, done_acc = 0;  // the last mask reduced (most lanes share one)
      FOR_LANES(act)
      const uint32_t lanes = member[lane] | (1u << lane);
      if (lanes != done_mask) {
        done_mask = lanes;
        done_acc = reduce(lanes);
      }
      R[d.reg] = sgn ? to_bits<int32_t>(int32_t(done_acc)) : done_acc;
      END_LANES
      return;
    }
    case Op::Elect: {
      // One leader among the member lanes that execute with it: the lowest-numbered one (the PTX
      // ISA promises only that the choice is the same for the same mask; an H100 picks the lowest,
      // tests/conformance/083_invoke_one_elect). d: the leader's lane id in every lane; p: true in
      // the leader only.
      FOR_LANES(act)
      const uint32_t lanes = (uint32_t(operand(w, lane, I.src[0])) & act) | (1u << lane);
      const uint32_t leader = uint32_t(__builtin_ctz(lanes));
      if (d.reg != Operand::kNoReg) R[d.reg] = leader;
      if (I.ndst > 1 && I.dst[1].reg != Operand::kNoReg) R[I.dst[1].reg] = uint32_t(lane) == leader;
      END_LANES
      return;
    }
    default: return;
  }
}

}  // namespace synclab::sim
