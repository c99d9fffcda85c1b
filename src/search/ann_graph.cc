#include "search/ann_graph.h"

#include <hnswlib/hnswlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <mutex>
#include <queue>
#include <thread>

#include "search/int8_code.h"

namespace pc {
namespace {

// The graph's distance between two int8 rows: 1 − their inner product, so nearer is smaller.
float RowDistance(const uint8_t* a, const uint8_t* b, size_t dim) {
  return 1.0f - int8::RowDot(a, b, dim);
}

// Inner product over int8 rows (int8::EncodeRow): the graph holds a quarter of the floats' bytes,
// and each of a search's ~2,000 distances reads a quarter as much (measured in
// docs/benchmarks.md, "The graph over int8 rows"). hnswlib calls Distance through a pointer.
class Int8InnerProductSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit Int8InnerProductSpace(size_t dim) : dim_(dim) {}
  size_t get_data_size() override { return int8::RowBytes(dim_); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return &dim_; }

 private:
  static float Distance(const void* a, const void* b, const void* dim) {
    return RowDistance(static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                       *static_cast<const size_t*>(dim));
  }
  size_t dim_;
};

using Hnsw = hnswlib::HierarchicalNSW<float>;
using hnswlib::tableint;

// Asks for every cache line of the row of `id` (hnswlib prefetches only a row's first line, and
// only one neighbour ahead; a 388-byte row spans seven lines).
void PrefetchRow(const Hnsw& h, tableint id, size_t row_bytes) {
  const auto row = reinterpret_cast<uintptr_t>(h.getDataByInternalId(id));
  for (uintptr_t line = row & ~uintptr_t{63}; line < row + row_bytes; line += 64)
    __builtin_prefetch(reinterpret_cast<const void*>(line), 0, 3);
}

float DistanceTo(const Hnsw& h, const uint8_t* query, tableint id, size_t dim) {
  return RowDistance(query, reinterpret_cast<const uint8_t*>(h.getDataByInternalId(id)), dim);
}

// hnswlib's searchKnn (0.6.2: a greedy descent through the upper layers, then a best-first walk of
// layer 0 keeping the `ef` nearest): the same nodes in the same order, so the same answer. But at
// each node it first marks and prefetches the whole rows of all its unvisited neighbours, then
// takes their distances, so a hop's ~110 cache misses (~16 new neighbours of 7 lines, measured at
// 100k) overlap instead of following one another (docs/benchmarks.md, "The graph walk
// prefetches"). Returns up to k (distance, internal id) pairs, nearest first; marked-deleted
// nodes are walked through but never returned. hnswlib's members are public by design.
std::vector<std::pair<float, tableint>> Walk(const Hnsw& h, const uint8_t* query, size_t dim,
                                             size_t ef, size_t k) {
  const size_t row_bytes = int8::RowBytes(dim);
  tableint cur = h.enterpoint_node_;
  float cur_dist = DistanceTo(h, query, cur, dim);
  for (int level = h.maxlevel_; level > 0; --level) {
    for (bool changed = true; changed;) {
      changed = false;
      const auto* list = reinterpret_cast<const unsigned int*>(h.get_linklist(cur, level));
      const size_t n = h.getListCount(const_cast<unsigned int*>(list));
      const tableint* ids = list + 1;
      for (size_t i = 0; i < n; ++i) PrefetchRow(h, ids[i], row_bytes);
      for (size_t i = 0; i < n; ++i) {
        const float d = DistanceTo(h, query, ids[i], dim);
        if (d < cur_dist) {
          cur_dist = d;
          cur = ids[i];
          changed = true;
        }
      }
    }
  }

  using Pair = std::pair<float, tableint>;
  auto by_first = [](const Pair& a, const Pair& b) { return a.first < b.first; };
  // `top`: the ef nearest so far, farthest on top; `open`: nodes to expand, by -distance.
  std::priority_queue<Pair, std::vector<Pair>, decltype(by_first)> top(by_first), open(by_first);
  const bool deletions = h.num_deleted_ > 0;
  hnswlib::VisitedList* visited = h.visited_list_pool_->getFreeVisitedList();
  hnswlib::vl_type* mark = visited->mass;
  const hnswlib::vl_type tag = visited->curV;
  float bound = std::numeric_limits<float>::max();
  if (!deletions || !h.isMarkedDeleted(cur)) {
    bound = cur_dist;
    top.emplace(cur_dist, cur);
  }
  open.emplace(-cur_dist, cur);
  mark[cur] = tag;
  std::vector<tableint> fresh(h.maxM0_ + 1);
  while (!open.empty()) {
    const Pair next = open.top();
    if (-next.first > bound && (top.size() == ef || !deletions)) break;
    open.pop();
    const auto* list = reinterpret_cast<const unsigned int*>(h.get_linklist0(next.second));
    const size_t n = h.getListCount(const_cast<unsigned int*>(list));
    size_t m = 0;
    for (size_t i = 1; i <= n; ++i) {
      const tableint id = list[i];
      if (mark[id] == tag) continue;
      mark[id] = tag;
      fresh[m++] = id;
      PrefetchRow(h, id, row_bytes);
    }
    for (size_t i = 0; i < m; ++i) {
      const tableint id = fresh[i];
      const float d = DistanceTo(h, query, id, dim);
      if (top.size() >= ef && d >= bound) continue;
      open.emplace(-d, id);
      __builtin_prefetch(h.get_linklist0(open.top().second), 0, 3);
      if (!deletions || !h.isMarkedDeleted(id)) top.emplace(d, id);
      if (top.size() > ef) top.pop();
      if (!top.empty()) bound = top.top().first;
    }
  }
  h.visited_list_pool_->releaseVisitedList(visited);
  while (top.size() > k) top.pop();
  std::vector<Pair> out(top.size());
  for (size_t i = out.size(); i-- > 0; top.pop()) out[i] = top.top();
  return out;
}

// Whether every link of a loaded graph names one of its nodes, within the list sizes it was built
// with: Walk follows links without checking them (hnswlib's own layer-0 walk does not either), so
// a damaged file must not get that far.
bool LinksAreSound(const Hnsw& h) {
  const size_t n = h.cur_element_count;
  if (n == 0) return true;
  if (h.enterpoint_node_ >= n || h.maxlevel_ < 0 || h.element_levels_.size() < n) return false;
  auto sound = [&](const unsigned int* list, size_t most) {
    const size_t count = h.getListCount(const_cast<unsigned int*>(list));
    if (count > most) return false;
    for (size_t j = 1; j <= count; ++j)
      if (list[j] >= n) return false;
    return true;
  };
  for (tableint i = 0; i < n; ++i) {
    if (h.element_levels_[i] > h.maxlevel_ || !sound(h.get_linklist0(i), h.maxM0_)) return false;
    for (int level = 1; level <= h.element_levels_[i]; ++level)
      if (!sound(h.get_linklist(i, level), h.maxM_)) return false;
  }
  return true;
}

}  // namespace

struct AnnGraph::Impl {
  explicit Impl(size_t dim) : space(dim) {}
  Int8InnerProductSpace space;
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> hnsw;
};

AnnGraph::AnnGraph(size_t dim) : dim_(dim), impl_(std::make_unique<Impl>(dim)) {}
AnnGraph::~AnnGraph() = default;

Result<std::unique_ptr<AnnGraph>> AnnGraph::Build(size_t dim, const uint8_t* rows,
                                                  std::vector<Member> members,
                                                  const std::atomic<bool>* stop, size_t threads) {
  std::unique_ptr<AnnGraph> g(new AnnGraph(dim));
  try {
    g->impl_->hnsw = std::make_unique<hnswlib::HierarchicalNSW<float>>(
        &g->impl_->space, std::max<size_t>(members.size(), 1), kAnnLinks, kAnnBuildBreadth);
    g->impl_->hnsw->setEf(kAnnSearchBreadth);
  } catch (const std::exception& e) {
    return Internal(std::string("ann build failed: ") + e.what());
  }
  // Each thread takes the next row; the first row goes in alone (it is the entry point).
  std::atomic<size_t> next{0};
  std::mutex failed_mu;
  std::string failed;
  auto insert = [&](size_t until) {
    for (size_t i; (i = next.fetch_add(1)) < until;) {
      if (stop && stop->load(std::memory_order_relaxed)) return;
      try {
        g->impl_->hnsw->addPoint(rows + i * int8::RowBytes(dim), members[i].label);
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(failed_mu);
        if (failed.empty()) failed = e.what();
        next = members.size();  // the others stop too
        return;
      }
    }
  };
  insert(std::min<size_t>(1, members.size()));
  if (failed.empty()) next = std::min<size_t>(1, members.size());
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads && members.size() > 1; ++t)
    helpers.emplace_back(insert, members.size());
  insert(members.size());
  for (std::thread& h : helpers) h.join();
  if (!failed.empty()) return Internal("ann build failed: " + failed);
  if (stop && stop->load(std::memory_order_relaxed)) return Internal("ann build cancelled");
  g->members_ = std::move(members);
  return g;
}

Result<std::unique_ptr<AnnGraph>> AnnGraph::Load(const std::string& path, size_t dim) {
  std::unique_ptr<AnnGraph> g(new AnnGraph(dim));
  {
    std::ifstream probe(path, std::ios::binary);
    if (!probe) return NotFound("no ann graph at " + path);
  }
  try {
    g->impl_->hnsw = std::make_unique<hnswlib::HierarchicalNSW<float>>(&g->impl_->space, path);
    g->impl_->hnsw->setEf(kAnnSearchBreadth);
  } catch (const std::exception& e) {
    return Internal("ann graph " + path + " unreadable: " + e.what());
  }
  // hnswlib takes the row size from the space, not the file: check the file's row layout (another
  // dimension, or a graph of float rows saved before the int8 rows).
  const auto& h = *g->impl_->hnsw;
  if (h.label_offset_ - h.offsetData_ != int8::RowBytes(dim))
    return Internal("ann graph " + path + " has another row layout");
  if (!LinksAreSound(h)) return Internal("ann graph " + path + " is damaged: a link names no node");
  std::ifstream in(path + ".members");
  uint32_t label;
  std::string version;
  while (in >> label >> version) g->members_.push_back({label, std::move(version)});
  if (!in.eof() || g->members_.size() != h.cur_element_count)
    return Internal("ann graph " + path + ": members do not match the graph");
  return g;
}

namespace {

Status Publish(const std::string& tmp, const std::string& path) {
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (!ec) return Status::Ok();
  std::remove(tmp.c_str());
  return Internal("saving ann graph failed: " + ec.message());
}

}  // namespace

void AnnGraph::Remove(const std::string& path) {
  std::remove(path.c_str());
  std::remove((path + ".members").c_str());
}

Status AnnGraph::Save(const std::string& path) const {
  {
    std::ofstream out(path + ".members.tmp", std::ios::trunc);
    for (const Member& m : members_) out << m.label << ' ' << m.version_id << '\n';
    out.close();
    if (!out) return Internal("saving ann graph members failed: " + path);
  }
  PC_RETURN_IF_ERROR(Publish(path + ".members.tmp", path + ".members"));
  std::string tmp = path + ".tmp";
  try {
    impl_->hnsw->saveIndex(tmp);
  } catch (const std::exception& e) {
    std::remove(tmp.c_str());
    return Internal("saving ann graph failed: " + std::string(e.what()));
  }
  return Publish(tmp, path);
}

size_t AnnGraph::size() const { return impl_->hnsw->cur_element_count; }

const uint8_t* AnnGraph::RowOf(uint32_t label) const {
  auto it = impl_->hnsw->label_lookup_.find(label);
  if (it == impl_->hnsw->label_lookup_.end()) return nullptr;
  return reinterpret_cast<const uint8_t*>(impl_->hnsw->getDataByInternalId(it->second));
}

void AnnGraph::MarkStale(uint32_t label) {
  try {
    impl_->hnsw->markDelete(label);
  } catch (const std::exception&) {
    // Unknown or already stale: either way it is not returned.
  }
}

std::vector<uint32_t> AnnGraph::Search(const float* query, size_t k) const {
  std::vector<uint32_t> out;
  if (impl_->hnsw->cur_element_count == 0 || k == 0) return out;
  std::vector<uint8_t> row(int8::RowBytes(dim_));
  int8::EncodeRow(query, dim_, row.data());
  const Hnsw& h = *impl_->hnsw;
  for (const auto& [distance, id] : Walk(h, row.data(), dim_, std::max(h.ef_, k), k))
    out.push_back(static_cast<uint32_t>(h.getExternalLabel(id)));
  return out;
}

}  // namespace pc
