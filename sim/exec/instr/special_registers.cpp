// The special registers (%tid, %ntid, %laneid, %clock, %globaltimer, %envreg...), read per lane.

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

uint64_t KernelRun::special(const Warp& w, int lane, SReg r) const {
  const Lane& L = w.lanes[lane];
  const Cta& c = *w.cta;
  switch (r) {
    case SReg::TidX: return L.tid[0];
    case SReg::TidY: return L.tid[1];
    case SReg::TidZ: return L.tid[2];
    case SReg::NtidX: return p_.block.x;
    case SReg::NtidY: return p_.block.y;
    case SReg::NtidZ: return p_.block.z;
    case SReg::CtaidX: return c.ctaid[0];
    case SReg::CtaidY: return c.ctaid[1];
    case SReg::CtaidZ: return c.ctaid[2];
    case SReg::NctaidX: return p_.grid.x;
    case SReg::NctaidY: return p_.grid.y;
    case SReg::NctaidZ: return p_.grid.z;
    case SReg::LaneId: return static_cast<uint64_t>(lane);
    case SReg::WarpId: return w.index;
    case SReg::NWarpId: return prof_.max_warps_per_sm;
    case SReg::SmId: return c.sm;
    case SReg::NSmId: return prof_.sm_count;
    case SReg::GridId: return 1;
    case SReg::LanemaskEq: return 1u << lane;
    case SReg::LanemaskLe: return lane == 31 ? 0xffffffffu : (2u << lane) - 1;
    case SReg::LanemaskLt: return (1u << lane) - 1;
    case SReg::LanemaskGe: return ~((1u << lane) - 1);
    case SReg::LanemaskGt: return lane == 31 ? 0u : ~((2u << lane) - 1);
    case SReg::Clock: return static_cast<uint32_t>(clock_.clock_base + clock_.sm_steps[c.sm]);
    case SReg::ClockHi: return static_cast<uint32_t>((clock_.clock_base + clock_.sm_steps[c.sm]) >> 32);
    case SReg::Clock64: return clock_.clock_base + clock_.sm_steps[c.sm];
    case SReg::GlobalTimer: return clock_.time_base_ns + static_cast<uint64_t>(sim_ns());
    case SReg::GlobalTimerLo: return static_cast<uint32_t>(clock_.time_base_ns + static_cast<uint64_t>(sim_ns()));
    case SReg::GlobalTimerHi:
      return static_cast<uint32_t>((clock_.time_base_ns + static_cast<uint64_t>(sim_ns())) >> 32);
    case SReg::DynamicSmemSize: return p_.dynamic_shared;
    case SReg::TotalSmemSize: return shape_.dynamic_shared_base + p_.dynamic_shared;
    // The reserved region (sm_80+; kernel_run.h): 1 KB after the kernel's own shared memory. The
    // hardware's layout is not documented; cooperative groups needs its scratch at offset_1 to be
    // at least 288 bytes that nothing else uses, which offset_1 = begin + 512 gives.
    case SReg::ReservedSmemBegin:
    case SReg::ReservedSmemOffset0: return shape_.reserved_smem_base;
    case SReg::ReservedSmemEnd: return shape_.reserved_smem_base + kReservedSmemBytes;
    case SReg::ReservedSmemCap: return kReservedSmemBytes;
    case SReg::ReservedSmemOffset1: return shape_.reserved_smem_base + kReservedSmemBytes / 2;
    default: break;
  }
  int env = static_cast<int>(r) - static_cast<int>(SReg::EnvReg0);
  if (env >= 0 && env < 32) {
    // %envreg1 (high half) and %envreg2 (low half) hold the address of the cooperative
    // grid-barrier workspace: cooperative_groups joins them with bfi.b64 ..., 32, 32.
    if ((env == 1 || env == 2) && !p_.cooperative) envreg_read_ = true;
    if (env == 1) return dispatch_.grid_workspace >> 32;
    if (env == 2) return dispatch_.grid_workspace & 0xffffffffu;
    return 0;
  }
  return 0;
}
}  // namespace synclab::sim
