// Phrase extraction and scoring in C++ (cad/train/extract.py and cad/train/phrase_scoring.py are
// the reference): the Python stages spent their time in per-record string work. Same records, the
// same external sorts in bounded memory (at most `max_items` distinct records of each stream in
// memory, sorted runs spilled to disk and merged), the same arithmetic in the same order and the
// same "%g" formatting, so that both write the same tables byte for byte (tests/test_phrase_scoring.py).
//
// At a million sentence pairs the time went to the allocator (a std::string per record and per
// field), to parsing text runs, and to the disk those runs took. So: records are counted in one
// arena with an open-addressing index, runs are front-coded binary (sorted keys share most of their
// bytes: one source phrase's many targets), groups are read as views into reused buffers, and
// scoring releases the GIL so that the caller can compress the tables on the other core.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <numeric>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

using sv = std::string_view;
constexpr sv kSep = " ||| ";
const char* const kOrient[3] = {"mono", "swap", "other"};

// Python's f"{x:g}", printf's %g (std::to_chars is specified as printf, and is faster)
void append_g(std::string& out, double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 6);
  out.append(buf, r.ptr);
}

// Python's f"{x:.6f}"
void append_fixed6(std::string& out, double x) {
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, 6);
  out.append(buf, r.ptr);
}

void append_uint(std::string& out, uint64_t x) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, x);
  out.append(buf, r.ptr);
}

// the fields of "a ||| b ||| c", as views into `s`
size_t split_fields(sv s, sv* out, size_t max_fields) {
  size_t n = 0, p = 0;
  while (n + 1 < max_fields) {
    size_t q = s.find(kSep, p);
    if (q == sv::npos) break;
    out[n++] = s.substr(p, q - p);
    p = q + kSep.size();
  }
  out[n++] = s.substr(p);
  return n;
}

void split_words(sv s, std::vector<sv>& out) {
  out.clear();
  size_t p = 0;
  for (;;) {
    size_t q = s.find(' ', p);
    if (q == sv::npos) {
      out.push_back(s.substr(p));
      return;
    }
    out.push_back(s.substr(p, q - p));
    p = q + 1;
  }
}

std::string io_error(const char* what, const std::string& path) {
  return std::string(what) + " " + path + (errno ? std::string(": ") + std::strerror(errno) : std::string());
}

// ---- sorted runs on disk -----------------------------------------------------------------------
// A run is a sequence of records, each varint(bytes shared with the previous key), varint(length of
// the rest), the rest, varint(count), stored in blocks of about a megabyte, each deflated (zlib,
// level 1) behind its two lengths, raw and deflated, as 4-byte little-endian numbers. Only this file
// writes and reads them. Deflated, the runs of `make large` take a quarter of the disk (its peak was
// the scoring's runs: a shard's 92 MB of runs deflate to 25 MB) for a few seconds of CPU a gigabyte.

constexpr size_t kHeader = 8;    // a block's raw and deflated lengths

class RunWriter {
 public:
  explicit RunWriter(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {
    if (!f_) throw std::runtime_error(io_error("cannot write sort run", path));
    buf_.reserve(kFlush + 4096);
  }
  RunWriter(const RunWriter&) = delete;
  RunWriter& operator=(const RunWriter&) = delete;
  ~RunWriter() {
    if (f_) std::fclose(f_);
  }
  void add(sv key, uint64_t count) {
    size_t shared = 0, n = std::min(key.size(), prev_.size());
    while (shared < n && key[shared] == prev_[shared]) ++shared;
    put(shared);
    put(key.size() - shared);
    buf_.append(key.data() + shared, key.size() - shared);
    put(count);
    prev_.assign(key.data(), key.size());
    if (buf_.size() >= kFlush) flush();
  }
  void close() {
    flush();
    FILE* f = f_;
    f_ = nullptr;
    errno = 0;
    if (std::fclose(f) != 0) throw std::runtime_error(io_error("cannot write sort run", path_));
  }

 private:
  static constexpr size_t kFlush = 1 << 20;
  void put(uint64_t v) {
    while (v >= 0x80) {
      buf_ += static_cast<char>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    buf_ += static_cast<char>(v);
  }
  void flush() {
    if (buf_.empty()) return;
    uLongf packed = compressBound(buf_.size());
    zbuf_.resize(kHeader + packed);
    if (compress2(reinterpret_cast<Bytef*>(zbuf_.data() + kHeader), &packed,
                  reinterpret_cast<const Bytef*>(buf_.data()), buf_.size(), 1) != Z_OK)
      throw std::runtime_error("cannot deflate sort run " + path_);
    put32(zbuf_.data(), buf_.size());
    put32(zbuf_.data() + 4, packed);
    errno = 0;
    if (std::fwrite(zbuf_.data(), 1, kHeader + packed, f_) != kHeader + packed)
      throw std::runtime_error(io_error("cannot write sort run", path_));
    buf_.clear();
  }
  static void put32(char* p, uint64_t v) {
    if (v > 0xffffffffu) throw std::runtime_error("sort run block over 4 GB");
    for (int k = 0; k < 4; ++k) p[k] = static_cast<char>((v >> (8 * k)) & 0xff);
  }
  std::string path_;
  FILE* f_;
  std::string buf_, prev_;
  std::vector<char> zbuf_;
};

class RunReader {
 public:
  explicit RunReader(const std::string& path) : path_(path), f_(std::fopen(path.c_str(), "rb")), buf_(kBuffer) {
    if (!f_) throw std::runtime_error(io_error("cannot read sort run", path));
  }
  RunReader(const RunReader&) = delete;
  RunReader& operator=(const RunReader&) = delete;
  ~RunReader() { std::fclose(f_); }
  // `key` must hold the key this reader returned last (the records are front-coded against it)
  bool next(std::string& key, uint64_t& count) {
    if (pos_ == end_ && !refill()) return false;
    uint64_t shared = get(), len = get();
    if (shared > key.size()) corrupt();
    key.resize(shared);
    while (len > 0) {
      if (pos_ == end_ && !refill()) corrupt();
      size_t take = std::min<uint64_t>(len, end_ - pos_);
      key.append(buf_.data() + pos_, take);
      pos_ += take;
      len -= take;
    }
    count = get();
    return true;
  }

 private:
  static constexpr size_t kBuffer = 1 << 18;
  static constexpr uint64_t kMaxBlock = 1 << 28;    // a block is a megabyte and one record
  // the next block, inflated into buf_; false at the end of the file
  bool refill() {
    pos_ = end_ = 0;
    unsigned char head[kHeader];
    size_t got = std::fread(head, 1, kHeader, f_);
    if (got == 0) {
      if (std::ferror(f_)) throw std::runtime_error(io_error("cannot read sort run", path_));
      return false;
    }
    if (got != kHeader) corrupt();
    uint64_t raw = get32(head), packed = get32(head + 4);
    // a damaged header must not make us allocate gigabytes: the writer's blocks are about kFlush
    if (raw == 0 || raw > kMaxBlock || packed > compressBound(raw)) corrupt();
    zbuf_.resize(packed);
    if (std::fread(zbuf_.data(), 1, packed, f_) != packed) {
      if (std::ferror(f_)) throw std::runtime_error(io_error("cannot read sort run", path_));
      corrupt();
    }
    if (buf_.size() < raw) buf_.resize(raw);
    uLongf out = raw;
    if (uncompress(reinterpret_cast<Bytef*>(buf_.data()), &out, reinterpret_cast<const Bytef*>(zbuf_.data()),
                   packed) != Z_OK || out != raw)
      corrupt();
    end_ = raw;
    return end_ > 0;
  }
  static uint64_t get32(const unsigned char* p) {
    return uint64_t(p[0]) | uint64_t(p[1]) << 8 | uint64_t(p[2]) << 16 | uint64_t(p[3]) << 24;
  }
  uint64_t get() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ == end_ && !refill()) corrupt();
      auto b = static_cast<unsigned char>(buf_[pos_++]);
      v |= static_cast<uint64_t>(b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    corrupt();
    return 0;
  }
  [[noreturn]] void corrupt() { throw std::runtime_error("truncated or corrupt sort run " + path_); }
  std::string path_;
  FILE* f_;
  std::vector<char> buf_, zbuf_;
  size_t pos_ = 0, end_ = 0;
};

// ---- external counting: bounded memory, sorted runs on disk, k-way merge ------------------------

class Source {  // sorted (key, count) pairs, equal keys already summed
 public:
  virtual ~Source() = default;
  virtual bool next(std::string& key, uint64_t& count) = 0;
};

// Keys with their counts in one arena: no allocation per record
class ArenaCounts {
 public:
  size_t size() const { return entries_.size(); }
  void add(sv key, uint64_t count) {
    if (slots_.empty()) slots_.assign(1024, 0);
    const uint64_t h = std::hash<sv>{}(key);
    size_t mask = slots_.size() - 1, i = h & mask;
    while (uint32_t s = slots_[i]) {
      Entry& e = entries_[s - 1];
      if (e.hash == h && e.len == key.size() && std::memcmp(arena_.data() + e.off, key.data(), key.size()) == 0) {
        e.count += count;
        return;
      }
      i = (i + 1) & mask;
    }
    slots_[i] = static_cast<uint32_t>(entries_.size() + 1);
    entries_.push_back({arena_.size(), static_cast<uint32_t>(key.size()), h, count});
    arena_.append(key.data(), key.size());
    if (entries_.size() * 2 > slots_.size()) grow();
  }
  sv key(size_t i) const { return sv(arena_.data() + entries_[i].off, entries_[i].len); }
  uint64_t count(size_t i) const { return entries_[i].count; }
  // entry indices in byte order of their keys (Python's str order for UTF-8)
  std::vector<uint32_t> sorted() const {
    std::vector<uint32_t> order(entries_.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [this](uint32_t a, uint32_t b) { return key(a) < key(b); });
    return order;
  }
  void clear() {
    arena_.clear();
    entries_.clear();
    std::fill(slots_.begin(), slots_.end(), 0u);
  }

 private:
  struct Entry {
    size_t off;
    uint32_t len;
    uint64_t hash, count;
  };
  void grow() {
    std::vector<uint32_t> slots(slots_.size() * 2, 0);
    size_t mask = slots.size() - 1;
    for (size_t k = 0; k < entries_.size(); ++k) {
      size_t i = entries_[k].hash & mask;
      while (slots[i]) i = (i + 1) & mask;
      slots[i] = static_cast<uint32_t>(k + 1);
    }
    slots_.swap(slots);
  }
  std::string arena_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> slots_;
};

class MemorySource : public Source {
 public:
  explicit MemorySource(std::unique_ptr<ArenaCounts> counts) : counts_(std::move(counts)), order_(counts_->sorted()) {}
  bool next(std::string& key, uint64_t& count) override {
    if (i_ >= order_.size()) return false;
    sv k = counts_->key(order_[i_]);
    key.assign(k.data(), k.size());
    count = counts_->count(order_[i_]);
    ++i_;
    return true;
  }

 private:
  std::unique_ptr<ArenaCounts> counts_;
  std::vector<uint32_t> order_;
  size_t i_ = 0;
};

class MergeSource : public Source {
 public:
  explicit MergeSource(const std::vector<std::string>& runs) {
    for (const auto& r : runs) readers_.push_back(std::make_unique<RunReader>(r));
    heads_.resize(readers_.size());
    for (size_t i = 0; i < readers_.size(); ++i) pull(i);
  }
  bool next(std::string& key, uint64_t& count) override {
    if (heap_.empty()) return false;
    size_t i = heap_.top().second;
    heap_.pop();
    key = heads_[i].first;
    count = heads_[i].second;
    pull(i);
    while (!heap_.empty() && heads_[heap_.top().second].first == key) {
      size_t j = heap_.top().second;
      heap_.pop();
      count += heads_[j].second;
      pull(j);
    }
    return true;
  }

 private:
  void pull(size_t i) {
    if (readers_[i]->next(heads_[i].first, heads_[i].second)) heap_.push({&heads_[i].first, i});
  }
  struct Greater {
    bool operator()(const std::pair<const std::string*, size_t>& a, const std::pair<const std::string*, size_t>& b) const {
      int c = a.first->compare(*b.first);
      return c != 0 ? c > 0 : a.second > b.second;
    }
  };
  std::vector<std::unique_ptr<RunReader>> readers_;
  std::vector<std::pair<std::string, uint64_t>> heads_;
  std::priority_queue<std::pair<const std::string*, size_t>, std::vector<std::pair<const std::string*, size_t>>, Greater> heap_;
};

// A million-pair corpus in shards of 10,000 lines gives about 100 runs a stream: merged in one pass
constexpr size_t kMaxFanIn = 256;

class ExternalCounter {
 public:
  ExternalCounter(std::string dir, std::string name, size_t max_items)
      : dir_(std::move(dir)), name_(std::move(name)), max_items_(std::max<size_t>(max_items, 1)),
        counts_(std::make_unique<ArenaCounts>()) {}

  void add(sv key, uint64_t count = 1) {
    counts_->add(key, count);
    if (counts_->size() >= max_items_) spill();
  }

  // a sorted run written elsewhere (a shard's extraction, cad/train/extract_shards.py): merged
  // with the others, never deleted, so that an interrupted scoring can resume from the shards
  void add_run(const std::string& path) {
    runs_.push_back(path);
    external_.insert(path);
  }

  // every key once, in byte order, with its summed count, as one sorted run file
  void dump(const std::string& path) {
    auto src = finish();
    write_run(path, *src);
  }

  // every key once, in byte order (Python's str order for UTF-8), with its summed count
  std::unique_ptr<Source> finish() {
    if (runs_.empty()) return std::make_unique<MemorySource>(std::move(counts_));
    spill();
    while (runs_.size() > kMaxFanIn) {
      std::vector<std::string> group(runs_.begin(), runs_.begin() + kMaxFanIn);
      runs_.erase(runs_.begin(), runs_.begin() + kMaxFanIn);
      std::string path = run_path();
      {
        MergeSource merged(group);
        write_run(path, merged);
      }
      for (const auto& p : group)
        if (!external_.count(p)) std::remove(p.c_str());
      runs_.push_back(path);
    }
    return std::make_unique<MergeSource>(runs_);
  }

 private:
  std::string run_path() { return dir_ + "/" + name_ + "-" + std::to_string(serial_++) + ".run"; }

  static void write_run(const std::string& path, Source& src) {
    RunWriter out(path);
    std::string key;
    uint64_t count;
    while (src.next(key, count)) out.add(key, count);
    out.close();
  }

  void spill() {
    if (counts_->size() == 0) return;
    std::string path = run_path();
    RunWriter out(path);
    for (uint32_t i : counts_->sorted()) out.add(counts_->key(i), counts_->count(i));
    out.close();
    counts_->clear();
    runs_.push_back(path);
  }

  std::string dir_, name_;
  size_t max_items_;
  std::unique_ptr<ArenaCounts> counts_;
  std::vector<std::string> runs_;
  std::set<std::string> external_;
  size_t serial_ = 0;
};

// ---- scoring -----------------------------------------------------------------------------------

using Points = std::vector<std::pair<int, int>>;

int parse_int(sv s) {
  int v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) throw std::runtime_error("bad alignment point in a sort run");
  return v;
}

void parse_points(sv text, Points& out) {
  out.clear();
  size_t p = 0;
  while (p < text.size()) {
    size_t q = text.find(' ', p);
    if (q == sv::npos) q = text.size();
    size_t dash = text.find('-', p);
    out.emplace_back(parse_int(text.substr(p, dash - p)), parse_int(text.substr(dash + 1, q - dash - 1)));
    p = q + 1;
  }
}

// Alignments of one phrase pair with their counts, in first-seen order (views into the group's rows)
using AlignCounts = std::vector<std::pair<sv, uint64_t>>;

void add_count(AlignCounts& a, sv key, uint64_t c) {
  for (auto& kv : a)
    if (kv.first == key) {
      kv.second += c;
      return;
    }
  a.emplace_back(key, c);
}

// phrase_scoring._best: the most frequent alignment; on a tie the largest vector over target
// positions of the sorted source positions aligned to each (Moses's FindBestAlignmentTargetToSource)
sv best_alignment(const AlignCounts& counts, size_t n_tgt) {
  if (counts.size() == 1) return counts[0].first;
  uint64_t top = 0;
  for (const auto& kv : counts) top = std::max(top, kv.second);
  const sv* best = nullptr;
  std::vector<std::vector<int>> best_vec;
  Points points;
  for (const auto& kv : counts) {
    if (kv.second != top) continue;
    std::vector<std::vector<int>> v(n_tgt);
    parse_points(kv.first, points);
    for (auto [i, j] : points) v.at(static_cast<size_t>(j)).push_back(i);
    for (auto& x : v) std::sort(x.begin(), x.end());
    if (best == nullptr || best_vec < v) {
      best = &kv.first;
      best_vec = std::move(v);
    }
  }
  return *best;
}

class LexTable {
 public:
  explicit LexTable(const py::dict& table) {
    table_.reserve(py::len(table));
    for (auto kv : table) {
      auto key = kv.first.cast<std::pair<std::string, std::string>>();
      table_.emplace(key.first + ' ' + key.second, kv.second.cast<double>());
    }
  }
  double get(sv a, sv b) const {
    key_.assign(a.data(), a.size());
    key_ += ' ';
    key_.append(b.data(), b.size());
    auto it = table_.find(key_);
    return it == table_.end() ? 1.0 : it->second;
  }

 private:
  std::unordered_map<std::string, double> table_;
  mutable std::string key_;
};

// phrase_scoring.lexical_weight: Π_j mean_{i aligned to j} w(t_j|s_i), or w(t_j|NULL)
double lexical_weight(const std::vector<sv>& src, const std::vector<sv>& tgt, const Points& align,
                      const LexTable& table) {
  std::vector<std::vector<int>> linked(tgt.size());
  for (auto [i, j] : align) linked.at(static_cast<size_t>(j)).push_back(i);
  double score = 1.0;
  for (size_t j = 0; j < tgt.size(); ++j) {
    if (!linked[j].empty()) {
      double s = 0.0;
      for (int i : linked[j]) s += table.get(src.at(static_cast<size_t>(i)), tgt[j]);
      score *= s / static_cast<double>(linked[j].size());
    } else {
      score *= table.get("NULL", tgt[j]);
    }
  }
  return score;
}

struct Row {
  std::array<sv, 4> f;
  size_t n_fields;
  uint64_t count;
};

// Consecutive records that share their first field (the ordering keeps them adjacent). The rows'
// fields are views into buffers reused from group to group: valid until the next call.
class Grouper {
 public:
  explicit Grouper(Source& src) : src_(src) { have_ = src_.next(pending_, pending_count_); }
  bool next(sv& head, std::vector<Row>& rows) {
    rows.clear();
    if (!have_) return false;
    size_t used = 0;
    sv first;
    do {
      sv field = sv(pending_).substr(0, pending_.find(kSep));
      if (used > 0 && field != first) break;
      if (used == store_.size()) store_.emplace_back();
      std::swap(store_[used], pending_);     // the old buffer comes back to be read into
      if (used == 0) first = sv(store_[0]).substr(0, field.size());
      counts_.resize(used + 1);
      counts_[used++] = pending_count_;
    } while ((have_ = src_.next(pending_, pending_count_)));
    for (size_t k = 0; k < used; ++k) {
      Row r;
      r.n_fields = split_fields(store_[k], r.f.data(), r.f.size());
      r.count = counts_[k];
      rows.push_back(r);
    }
    head = rows[0].f[0];
    return true;
  }

 private:
  Source& src_;
  std::deque<std::string> store_;   // a deque: growing it never moves the strings the views point into
  std::vector<uint64_t> counts_;
  std::string pending_;
  uint64_t pending_count_ = 0;
  bool have_ = false;
};

// Hands the table text to Python callables in blocks, taking the GIL only for the call
class TableSink {
 public:
  TableSink(const py::function& write_pt, const py::object& write_ro) : write_pt_(write_pt), write_ro_(write_ro) {}
  bool with_ro() const { return !write_ro_.is_none(); }
  std::string pt, ro;
  void maybe_flush() {
    if (pt.size() > (1u << 20)) flush();
  }
  void flush() {
    py::gil_scoped_acquire gil;
    if (!pt.empty()) write_pt_(py::bytes(pt));
    if (!ro.empty() && with_ro()) write_ro_(py::bytes(ro));
    pt.clear();
    ro.clear();
  }

 private:
  const py::function& write_pt_;
  const py::object& write_ro_;
};

class PhraseTables {
 public:
  PhraseTables(int max_len, const std::string& tmpdir, size_t max_items, const py::dict& lex_ef, const py::dict& lex_fe)
      : max_len_(max_len), tmpdir_(tmpdir), max_items_(max_items), lex_ef_(lex_ef), lex_fe_(lex_fe),
        direct_(tmpdir, "direct", max_items), inverse_(tmpdir, "inverse", max_items) {}

  // extract.extract_pairs for one sentence pair, each occurrence counted in both directions
  void add(const std::vector<std::string>& ss, const std::vector<std::string>& tt, const Points& points) {
    const int n_src = static_cast<int>(ss.size()), n_tgt = static_cast<int>(tt.size());
    std::vector<std::vector<int>> aligned_to_t(n_tgt);
    std::vector<int> t_min(n_src, n_tgt), t_max(n_src, -1);
    std::vector<std::vector<char>> pset(n_src, std::vector<char>(n_tgt, 0));
    for (auto [i, j] : points) {
      aligned_to_t[j].push_back(i);
      t_min[i] = std::min(t_min[i], j);
      t_max[i] = std::max(t_max[i], j);
      pset[i][j] = 1;
    }
    auto is_aligned = [&](int fi, int ei) {
      if (fi == -1 && ei == -1) return true;
      if (fi < 0 || ei < 0) return false;
      if (fi == n_src && ei == n_tgt) return true;
      if (fi >= n_src || ei >= n_tgt) return false;
      return pset[fi][ei] != 0;
    };
    auto orientation = [](bool mono, bool swap) { return mono && !swap ? 0 : (swap && !mono ? 1 : 2); };
    for (int start_e = 0; start_e < n_tgt; ++start_e) {
      int min_f = n_src, max_f = -1;
      for (int end_e = start_e; end_e < std::min(n_tgt, start_e + max_len_); ++end_e) {
        for (int fi : aligned_to_t[end_e]) {
          min_f = std::min(min_f, fi);
          max_f = std::max(max_f, fi);
        }
        if (max_f < 0 || max_f - min_f >= max_len_) continue;
        bool out_of_span = false;
        for (int fi = min_f; fi <= max_f && !out_of_span; ++fi)
          out_of_span = t_max[fi] >= 0 && (t_min[fi] < start_e || t_max[fi] > end_e);
        if (out_of_span) continue;
        for (int start_f = min_f; start_f >= 0 && start_f > max_f - max_len_ && (start_f == min_f || t_max[start_f] < 0);
             --start_f) {
          for (int end_f = max_f; end_f < n_src && end_f < start_f + max_len_ && (end_f == max_f || t_max[end_f] < 0);
               ++end_f) {
            int prev_o = orientation(is_aligned(start_f - 1, start_e - 1), is_aligned(end_f + 1, start_e - 1));
            int next_o = orientation(is_aligned(end_f + 1, end_e + 1), is_aligned(start_f - 1, end_e + 1));
            add_pair(ss, tt, aligned_to_t, start_f, end_f, start_e, end_e, prev_o, next_o);
          }
        }
      }
    }
    ++sentences_;
  }

  // phrase_scoring.build_phrase_tables' scoring half; returns (phrase pairs, source phrases)
  std::pair<int64_t, int64_t> write(const py::function& write_pt, const py::object& write_ro, double smoothing) {
    TableSink sink(write_pt, write_ro);
    py::gil_scoped_release nogil;
    // The two directions are independent until the join: the inverse one (count(e), lex(f|e),
    // re-sorted by source phrase) runs on a thread of its own while this one scores the direct
    // direction, writes the reordering table and keeps the rest of each line in a run.
    std::unique_ptr<Source> joined;
    std::exception_ptr failed;
    std::atomic<bool> stop{false};
    std::thread inverse([&] {
      try {
        joined = inverse_records(stop);
      } catch (...) {
        failed = std::current_exception();
      }
    });
    struct Joiner {   // on an error here, the other thread is told to stop and waited for
      std::thread& t;
      std::atomic<bool>& stop;
      ~Joiner() {
        stop = true;
        if (t.joinable()) t.join();
      }
    } joiner{inverse, stop};
    const std::string scored = tmpdir_ + "/scored.run";
    auto counts = direct_records(scored, sink, smoothing);
    inverse.join();
    if (failed) std::rethrow_exception(failed);
    join_halves(*joined, scored, sink);
    return counts;
  }

  // the extraction half's result: the sorted direct and inverse runs
  void write_runs(const std::string& direct, const std::string& inverse) {
    direct_.dump(direct);
    inverse_.dump(inverse);
  }

  // shards' runs (written by write_runs) to score as if their sentences had been added here
  void add_runs(const std::string& direct, const std::string& inverse) {
    direct_.add_run(direct);
    inverse_.add_run(inverse);
  }

  int64_t sentences() const { return sentences_; }
  int64_t extracted() const { return extracted_; }

 private:
  static void append_join(std::string& s, const std::vector<std::string>& w, int a, int b) {
    for (int k = a; k < b; ++k) {
      if (k > a) s += ' ';
      s += w[k];
    }
  }

  void add_pair(const std::vector<std::string>& ss, const std::vector<std::string>& tt,
                const std::vector<std::vector<int>>& aligned_to_t, int start_f, int end_f, int start_e, int end_e,
                int prev_o, int next_o) {
    al_.clear();
    for (int ei = start_e; ei <= end_e; ++ei)
      for (int fi : aligned_to_t[ei]) al_.emplace_back(fi - start_f, ei - start_e);
    std::sort(al_.begin(), al_.end());   // (source, target) order, the pair's alignment
    sp_.clear();
    append_join(sp_, ss, start_f, end_f + 1);
    tp_.clear();
    append_join(tp_, tt, start_e, end_e + 1);
    // inverse: "tp ||| sp ||| t-s ..." in (source, target) order
    key_.assign(tp_);
    key_.append(kSep);
    key_ += sp_;
    key_.append(kSep);
    for (size_t k = 0; k < al_.size(); ++k) {
      if (k) key_ += ' ';
      append_uint(key_, al_[k].second);
      key_ += '-';
      append_uint(key_, al_[k].first);
    }
    inverse_.add(key_);
    // direct: "sp ||| tp ||| s-t ... ||| prev next", the alignment in target-major order, the order
    // in which Moses prints a pair's alignment
    std::stable_sort(al_.begin(), al_.end(), [](auto a, auto b) { return a.second < b.second; });
    key_.assign(sp_);
    key_.append(kSep);
    key_ += tp_;
    key_.append(kSep);
    for (size_t k = 0; k < al_.size(); ++k) {
      if (k) key_ += ' ';
      append_uint(key_, al_[k].first);
      key_ += '-';
      append_uint(key_, al_[k].second);
    }
    key_.append(kSep);
    key_ += kOrient[prev_o];
    key_ += ' ';
    key_ += kOrient[next_o];
    direct_.add(key_);
    ++extracted_;
  }

  // inverse direction: count(e) and lex(f|e) per pair, re-sorted by source phrase for the join
  std::unique_ptr<Source> inverse_records(const std::atomic<bool>& stop) {
    ExternalCounter inv_sorted(tmpdir_, "joined", max_items_);
    auto src = inverse_.finish();
    Grouper groups(*src);
    sv tp;
    std::vector<Row> rows;
    std::vector<std::pair<sv, AlignCounts>> pairs;
    std::vector<sv> tw, sw;
    Points points;
    std::string key;
    while (groups.next(tp, rows)) {
      if (stop) throw std::runtime_error("stopped");
      pairs.clear();
      uint64_t count_e = 0;
      for (const Row& r : rows) {
        if (pairs.empty() || pairs.back().first != r.f[1]) pairs.emplace_back(r.f[1], AlignCounts{});
        add_count(pairs.back().second, r.n_fields > 2 ? r.f[2] : sv(), r.count);
        count_e += r.count;
      }
      split_words(tp, tw);
      for (auto& [sp, aligns] : pairs) {
        split_words(sp, sw);
        parse_points(best_alignment(aligns, sw.size()), points);
        double lex = lexical_weight(tw, sw, points, lex_fe_);
        key.assign(sp);
        key.append(kSep);
        key.append(tp);
        key.append(kSep);
        append_uint(key, count_e);
        key += ' ';
        append_g(key, lex);
        inv_sorted.add(key);
      }
    }
    return inv_sorted.finish();
  }

  struct Pair {
    sv tp;
    uint64_t n = 0;
    AlignCounts aligns;
    std::array<uint64_t, 3> prev{0, 0, 0}, next{0, 0, 0};
  };

  static int orient_index(sv o) { return o == "mono" ? 0 : (o == "swap" ? 1 : 2); }

  // the direct direction: the reordering table, and each phrase table line's direct half as a
  // run record "sp ||| tp ||| c(f,e) c(f) lex(e|f) ||| alignment", in the table's order
  std::pair<int64_t, int64_t> direct_records(const std::string& scored, TableSink& sink, double smoothing) {
    auto direct = direct_.finish();
    Grouper groups(*direct);
    RunWriter out(scored);
    sv sp;
    std::vector<Row> rows;
    std::vector<Pair> pairs;
    std::vector<sv> sw, tw;
    Points points;
    std::string record;
    int64_t phrase_pairs = 0, source_phrases = 0;
    while (groups.next(sp, rows)) {
      ++source_phrases;
      pairs.clear();
      uint64_t count_f = 0;
      for (const Row& r : rows) {
        if (pairs.empty() || pairs.back().tp != r.f[1]) {
          pairs.emplace_back();
          pairs.back().tp = r.f[1];
        }
        Pair& p = pairs.back();
        add_count(p.aligns, r.f[2], r.count);
        size_t space = r.f[3].find(' ');
        p.prev[orient_index(r.f[3].substr(0, space))] += r.count;
        p.next[orient_index(r.f[3].substr(space + 1))] += r.count;
        p.n += r.count;
        count_f += r.count;
      }
      split_words(sp, sw);
      for (const Pair& p : pairs) {
        split_words(p.tp, tw);
        sv best = best_alignment(p.aligns, tw.size());
        parse_points(best, points);
        record.assign(sp);
        record.append(kSep);
        record.append(p.tp);
        record.append(kSep);
        append_uint(record, p.n);
        record += ' ';
        append_uint(record, count_f);
        record += ' ';
        append_g(record, lexical_weight(sw, tw, points, lex_ef_));
        record.append(kSep);
        record.append(best);
        out.add(record, 0);
        if (sink.with_ro()) write_orientations(sink.ro, sp, p, smoothing);
        ++phrase_pairs;
      }
      if (sink.ro.size() > (1u << 20)) sink.flush();
    }
    out.close();
    sink.flush();
    return {phrase_pairs, source_phrases};
  }

  // the phrase table: each direct half with its inverse half, both in the table's order
  static void join_halves(Source& joined, const std::string& scored, TableSink& sink) {
    RunReader direct(scored);
    std::string dkey, jkey;
    uint64_t dcount, jcount;
    std::array<sv, 4> d;
    std::array<sv, 3> j;
    while (direct.next(dkey, dcount)) {
      split_fields(dkey, d.data(), d.size());
      if (!joined.next(jkey, jcount)) throw std::runtime_error("phrase table halves out of step: inverse ended");
      split_fields(jkey, j.data(), j.size());
      if (j[0] != d[0] || j[1] != d[1])
        throw std::runtime_error("phrase table halves out of step: " + std::string(d[0]) + " / " + std::string(d[1]) +
                                 " vs " + std::string(j[0]) + " / " + std::string(j[1]));
      // d[2]: "c(f,e) c(f) lex(e|f)"; j[2]: "c(e) lex(f|e)"
      size_t s1 = d[2].find(' '), s2 = d[2].find(' ', s1 + 1), js = j[2].find(' ');
      uint64_t n_i = 0, cf_i = 0, ce_i = 0;
      std::from_chars(d[2].data(), d[2].data() + s1, n_i);
      std::from_chars(d[2].data() + s1 + 1, d[2].data() + s2, cf_i);
      std::from_chars(j[2].data(), j[2].data() + js, ce_i);
      write_pair(sink.pt, d[0], d[1], static_cast<double>(n_i), static_cast<double>(ce_i), static_cast<double>(cf_i),
                 j[2].substr(js + 1), d[2].substr(s2 + 1), d[3]);
      sink.maybe_flush();
    }
    if (joined.next(jkey, jcount)) throw std::runtime_error("phrase table halves out of step: direct ended");
    sink.flush();
  }

  static void write_pair(std::string& out, sv sp, sv tp, double n, double count_e, double cf, sv lex_fe_s,
                         sv lex_ef_s, sv best) {
    out.append(sp);
    out.append(kSep);
    out.append(tp);
    out.append(kSep);
    append_g(out, n / count_e);
    out += ' ';
    out.append(lex_fe_s);
    out += ' ';
    append_g(out, n / cf);
    out += ' ';
    out.append(lex_ef_s);
    out.append(kSep);
    out.append(best);
    out.append(kSep);
    append_g(out, count_e);
    out += ' ';
    append_g(out, cf);
    out += ' ';
    append_g(out, n);
    out.append(" ||| |||\n");
  }

  static void write_orientations(std::string& out, sv sp, const Pair& p, double smoothing) {
    out.append(sp);
    out.append(kSep);
    out.append(p.tp);
    out.append(kSep);
    for (const auto* counts : {&p.prev, &p.next}) {
      double total = static_cast<double>((*counts)[0] + (*counts)[1] + (*counts)[2]) + smoothing * 3;
      for (int o = 0; o < 3; ++o) {
        append_fixed6(out, (static_cast<double>((*counts)[o]) + smoothing) / total);
        out += ' ';
      }
    }
    out += '\n';
  }

  int max_len_;
  std::string tmpdir_;
  size_t max_items_;
  LexTable lex_ef_, lex_fe_;
  ExternalCounter direct_, inverse_;
  int64_t sentences_ = 0, extracted_ = 0;
  std::vector<std::pair<int, int>> al_;
  std::string sp_, tp_, key_;
};

}  // namespace

PYBIND11_MODULE(_phrases, m) {
  m.doc() = "Phrase extraction and scoring (cad.train.phrase_scoring's native engine)";
  py::class_<PhraseTables>(m, "PhraseTables")
      .def(py::init<int, const std::string&, size_t, const py::dict&, const py::dict&>(), py::arg("max_len"),
           py::arg("tmpdir"), py::arg("max_items"), py::arg("lex_ef"), py::arg("lex_fe"))
      .def("add", &PhraseTables::add, py::arg("src"), py::arg("tgt"), py::arg("points"))
      .def("write", &PhraseTables::write, py::arg("write_pt"), py::arg("write_ro"), py::arg("smoothing"),
           "Score and write the tables, handing blocks of UTF-8 bytes to the callables; the GIL is "
           "released between calls")
      .def("write_runs", &PhraseTables::write_runs, py::arg("direct"), py::arg("inverse"))
      .def("add_runs", &PhraseTables::add_runs, py::arg("direct"), py::arg("inverse"))
      .def("sentences", &PhraseTables::sentences)
      .def("extracted", &PhraseTables::extracted);
}
