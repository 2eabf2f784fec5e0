// Lab 01 (data races): the harness's host side (provided). Each run_* function allocates,
// launches one of the student file's kernels under the simulator's current settings, copies the
// result back, and collects the simulator's reports after every launch (none on a GPU).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <synclab/regions.h>

#include "lab01.h"
#include "synclab_lab.h"
#include "lab01_kernels.cuh"
#include "lab_harness.cuh"

namespace lab01 {

using synclab::lab::check_shape;
using synclab::lab::DeviceArray;
using synclab::lab::finish_launch;
using synclab::lab::TraceScope;

const char* const kGradeNames[kGrades] = {"S", "A", "B", "C", "D", "E", "U"};

const char* name(HistogramKernel k) {
  switch (k) {
    case HistogramKernel::racy: return "racy";
    case HistogramKernel::atomic: return "atomic";
    case HistogramKernel::privatized: return "privatized";
  }
  return "?";
}

const char* name(RelaxKernel k) { return k == RelaxKernel::racy ? "racy" : "atomic"; }

std::vector<int> class_marks(int n, uint32_t seed) {
  std::vector<int> marks(std::max(n, 0));
  synclab::lab::Xorshift64 random{0x9e3779b97f4a7c15ull ^ seed};
  for (int& m : marks) m = int(random.next() % 101);
  return marks;
}

Graph hub_graph(int nodes, uint32_t seed) {
  if (nodes < 1) throw std::invalid_argument("a graph needs at least one node");
  Graph g;
  g.nodes = nodes;
  synclab::lab::Xorshift64 random{0x2545f4914f6cdd1dull ^ seed};
  g.row_start.push_back(0);
  for (int u = 0; u < nodes; ++u) {
    if (u + 1 < nodes) { g.neighbour.push_back(u + 1); g.weight.push_back(unsigned(50 + random.next() % 50)); }
    g.neighbour.push_back(int(random.next() % unsigned(std::min(nodes, 4))));  // a hub: nodes 0..3
    g.weight.push_back(unsigned(1 + random.next() % 40));
    g.neighbour.push_back(int(random.next() % unsigned(nodes)));
    g.weight.push_back(unsigned(1 + random.next() % 40));
    g.row_start.push_back(int(g.neighbour.size()));
  }
  return g;
}

std::vector<unsigned> half_known(int nodes) {
  std::vector<unsigned> d(std::max(nodes, 0), kInfinity);
  for (int v = 0; v < nodes; v += 2) d[v] = unsigned(v * 3 + 5);
  return d;
}

std::vector<Launch> task1a_launches(const std::string& student) {
  if (student.empty()) return {{2, 1}, {1, 2}};
  static const std::vector<Launch> alone{{2, 1}, {3, 1}, {4, 1}};
  static const std::vector<Launch> several{{1, 2}, {1, 4}, {1, 32}, {2, 2}, {1, 64}, {2, 32}};
  return {synclab::lab::student_pick(student, "lab01 task1a blocks", alone, 1)[0],
          synclab::lab::student_pick(student, "lab01 task1a lanes", several, 1)[0]};
}

IncrementResult run_increment(IncrementKernel kernel, int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  IncrementResult r;
  DeviceArray<int> x(1);
  x.upload({0});
  if (trace) synclab_region(x.ptr, x.bytes(), "x", "array", 1);
  TraceScope scope(trace);
  if (kernel == IncrementKernel::racy) increment_racy<<<blocks, threads>>>(x.ptr);
  else increment_fixed<<<blocks, threads>>>(x.ptr);
  finish_launch(r.reports);
  r.value = x.download()[0];
  return r;
}

HistogramResult run_histogram(HistogramKernel kernel, const std::vector<int>& marks, int blocks,
                              int threads, const char* trace) {
  check_shape(blocks, threads);
  HistogramResult r;
  DeviceArray<int> d_marks(marks.size());
  DeviceArray<unsigned> d_bins(kGrades);
  d_marks.upload(marks);
  d_bins.upload(std::vector<unsigned>(kGrades, 0));
  if (trace) {
    synclab_region(d_bins.ptr, d_bins.bytes(), "bins (S A B C D E U)", "array", kGrades);
    synclab_region(d_marks.ptr, d_marks.bytes(), "marks", "array", marks.size());
  }
  TraceScope scope(trace);
  const int n = int(marks.size());
  switch (kernel) {
    case HistogramKernel::racy: histogram_racy<<<blocks, threads>>>(d_marks.ptr, n, d_bins.ptr); break;
    case HistogramKernel::atomic: histogram_atomic<<<blocks, threads>>>(d_marks.ptr, n, d_bins.ptr); break;
    case HistogramKernel::privatized: histogram_privatized<<<blocks, threads>>>(d_marks.ptr, n, d_bins.ptr); break;
  }
  finish_launch(r.reports);
  r.bins = d_bins.download();
  return r;
}

namespace {

struct DeviceGraph {
  DeviceArray<int> row_start, neighbour;
  DeviceArray<unsigned> weight;
  explicit DeviceGraph(const Graph& g)
      : row_start(g.row_start.size()), neighbour(g.neighbour.size()), weight(g.weight.size()) {
    if (g.nodes < 1 || int(g.row_start.size()) != g.nodes + 1 || g.neighbour.size() != g.weight.size() ||
        g.row_start.back() != int(g.neighbour.size()))
      throw std::invalid_argument("malformed graph (row_start must have nodes+1 entries ending at the edge count)");
    row_start.upload(g.row_start);
    neighbour.upload(g.neighbour);
    weight.upload(g.weight);
  }
};

// One round on the device: out = in, then relax into out.
void relax_on_device(RelaxKernel kernel, const DeviceGraph& dg, int nodes, const DeviceArray<unsigned>& in,
                     DeviceArray<unsigned>& out, int blocks, int threads, RelaxResult& r) {
  SYNCLAB_LAB_CHECK(cudaMemcpy(out.ptr, in.ptr, in.bytes(), cudaMemcpyDeviceToDevice));
  if (kernel == RelaxKernel::racy)
    relax_racy<<<blocks, threads>>>(dg.row_start.ptr, dg.neighbour.ptr, dg.weight.ptr, nodes, in.ptr, out.ptr);
  else
    relax_atomic<<<blocks, threads>>>(dg.row_start.ptr, dg.neighbour.ptr, dg.weight.ptr, nodes, in.ptr, out.ptr);
  finish_launch(r.reports);
  ++r.rounds;
}

}  // namespace

RelaxResult run_relax_round(RelaxKernel kernel, const Graph& g, const std::vector<unsigned>& dist_in,
                            int blocks, int threads, const char* trace) {
  check_shape(blocks, threads);
  if (int(dist_in.size()) != g.nodes) throw std::invalid_argument("dist_in must have one entry per node");
  RelaxResult r;
  DeviceGraph dg(g);
  DeviceArray<unsigned> in(g.nodes), out(g.nodes);
  in.upload(dist_in);
  if (trace) synclab_region(out.ptr, out.bytes(), "dist_out", "array", g.nodes);
  TraceScope scope(trace);
  relax_on_device(kernel, dg, g.nodes, in, out, blocks, threads, r);
  r.dist = out.download();
  return r;
}

RelaxResult run_sssp(RelaxKernel kernel, const Graph& g, int source, int blocks, int threads,
                     const char* trace) {
  check_shape(blocks, threads);
  if (source < 0 || source >= g.nodes) throw std::invalid_argument("source is not a node");
  RelaxResult r;
  DeviceGraph dg(g);
  DeviceArray<unsigned> a(g.nodes), b(g.nodes);
  std::vector<unsigned> dist(g.nodes, kInfinity);
  dist[source] = 0;
  a.upload(dist);
  if (trace) {
    synclab_region(a.ptr, a.bytes(), "dist (even rounds)", "array", g.nodes);
    synclab_region(b.ptr, b.bytes(), "dist (odd rounds)", "array", g.nodes);
  }
  TraceScope scope(trace);
  DeviceArray<unsigned>* in = &a;
  DeviceArray<unsigned>* out = &b;
  for (int round = 0; round < g.nodes; ++round) {
    relax_on_device(kernel, dg, g.nodes, *in, *out, blocks, threads, r);
    std::vector<unsigned> next = out->download();
    bool changed = next != dist;
    dist.swap(next);
    std::swap(in, out);
    if (!changed) break;
  }
  r.dist = dist;
  return r;
}

}  // namespace lab01
