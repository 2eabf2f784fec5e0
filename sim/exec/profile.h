// Device profiles: the shape of the virtual GPU (SMs, residency limits, memory sizes) that
// drives CTA dispatch, occupancy answers and cudaGetDeviceProperties.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace synclab::sim {

struct DeviceProfile {
  std::string name;       // "teaching", "h100", ...
  std::string marketing;  // what cudaDeviceProp::name reports
  int cc_major = 7, cc_minor = 5;
  uint32_t sm_count = 1;
  uint32_t max_ctas_per_sm = 1;
  uint32_t max_threads_per_sm = 1024;
  uint32_t max_threads_per_block = 1024;
  uint32_t max_warps_per_sm = 32;
  uint64_t shared_per_sm = 64 * 1024;
  uint64_t shared_per_block = 48 * 1024;
  uint64_t shared_per_block_optin = 48 * 1024;
  uint32_t regs_per_sm = 65536;
  uint32_t regs_per_block = 65536;
  uint64_t global_bytes = 1ull << 32;
  uint64_t const_bytes = 64 * 1024;
  uint32_t clock_khz = 1'000'000;
  uint32_t mem_clock_khz = 1'000'000;
  uint32_t mem_bus_width = 256;
  uint32_t l2_bytes = 1 << 20;
  uint32_t max_grid[3] = {0x7fffffffu, 65535, 65535};
  uint32_t max_block[3] = {1024, 1024, 64};
};

// The profiles shipped with the simulator. "teaching" (the default) has 2 SMs holding 2 CTAs
// of up to 512 threads each, so residency limits are easy to reach in a lab; "h100" follows
// the H100 SXM (132 SMs, 32 CTAs / 2048 threads / 228 KiB shared per SM).
const std::vector<DeviceProfile>& device_profiles();
const DeviceProfile* find_profile(const std::string& name);

}  // namespace synclab::sim
