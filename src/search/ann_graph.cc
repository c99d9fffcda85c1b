#include "search/ann_graph.h"

#include <hnswlib/hnswlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "search/int8_code.h"

namespace pc {
namespace {

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
    return 1.0f - int8::RowDot(static_cast<const uint8_t*>(a), static_cast<const uint8_t*>(b),
                               *static_cast<const size_t*>(dim));
  }
  size_t dim_;
};

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

std::vector<std::pair<uint32_t, float>> AnnGraph::Search(const float* query, size_t k) const {
  std::vector<std::pair<uint32_t, float>> out;
  if (impl_->hnsw->cur_element_count == 0 || k == 0) return out;
  std::vector<uint8_t> row(int8::RowBytes(dim_));
  int8::EncodeRow(query, dim_, row.data());
  auto heap = impl_->hnsw->searchKnn(row.data(), k);  // farthest on top; distance = 1 - dot
  out.resize(heap.size());
  for (size_t i = heap.size(); i-- > 0; heap.pop())
    out[i] = {static_cast<uint32_t>(heap.top().second), 1.0f - heap.top().first};
  return out;
}

}  // namespace pc
