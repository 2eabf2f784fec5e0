#include "sim/exec/profile.h"

namespace synclab::sim {

namespace {

DeviceProfile teaching() {
  DeviceProfile p;
  p.name = "teaching";
  p.marketing = "SyncLab teaching GPU (simulated)";
  p.cc_major = 7;
  p.cc_minor = 5;
  p.sm_count = 2;
  p.max_ctas_per_sm = 2;
  p.max_threads_per_sm = 1024;
  p.max_threads_per_block = 1024;
  p.max_warps_per_sm = 32;
  p.shared_per_sm = 96 * 1024;
  p.shared_per_block = 48 * 1024;
  p.shared_per_block_optin = 64 * 1024;
  p.global_bytes = 4ull << 30;
  return p;
}

DeviceProfile h100() {
  // H100 SXM5 figures from NVIDIA's H100 whitepaper / CUDA occupancy tables (cc 9.0).
  DeviceProfile p;
  p.name = "h100";
  p.marketing = "NVIDIA H100 (simulated)";
  p.cc_major = 9;
  p.cc_minor = 0;
  p.sm_count = 132;
  p.max_ctas_per_sm = 32;
  p.max_threads_per_sm = 2048;
  p.max_threads_per_block = 1024;
  p.max_warps_per_sm = 64;
  p.shared_per_sm = 228 * 1024;
  p.shared_per_block = 48 * 1024;
  p.shared_per_block_optin = 227 * 1024;
  p.global_bytes = 80ull << 30;
  p.clock_khz = 1'980'000;
  p.mem_clock_khz = 2'619'000;
  p.mem_bus_width = 5120;
  p.l2_bytes = 50 << 20;
  return p;
}

DeviceProfile sm70_small() {
  // A small Volta-class device: 4 SMs, 8 CTAs per SM; useful for residency experiments at a
  // scale between "teaching" and "h100".
  DeviceProfile p = teaching();
  p.name = "volta-small";
  p.marketing = "SyncLab small Volta-class GPU (simulated)";
  p.cc_major = 7;
  p.cc_minor = 0;
  p.sm_count = 4;
  p.max_ctas_per_sm = 8;
  p.max_threads_per_sm = 2048;
  p.max_warps_per_sm = 64;
  return p;
}

}  // namespace

const std::vector<DeviceProfile>& device_profiles() {
  static const std::vector<DeviceProfile> profiles = {teaching(), h100(), sm70_small()};
  return profiles;
}

const DeviceProfile* find_profile(const std::string& name) {
  for (const auto& p : device_profiles())
    if (p.name == name) return &p;
  return nullptr;
}

}  // namespace synclab::sim
