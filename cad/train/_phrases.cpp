// Phrase extraction and scoring in C++ (cad/train/extract.py and cad/train/phrase_scoring.py are
// the reference): the Python stages spent their time in per-record string work. Same records, the
// same external sorts in bounded memory (at most `max_items` distinct records of each stream in
// memory, sorted runs spilled to disk and merged), the same arithmetic in the same order and the
// same "%g" formatting, so that both write the same tables byte for byte (tests/test_phrase_scoring.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <queue>
#include <set>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

const std::string kSep = " ||| ";
const char* const kOrient[3] = {"mono", "swap", "other"};

// Python's f"{x:g}", printf's %g (std::to_chars is specified as printf, and is faster)
std::string fmt_g(double x) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::general, 6);
  return std::string(buf, r.ptr);
}

// Python's f"{x:.6f}"
void append_fixed6(std::string& out, double x) {
  char buf[400];
  auto r = std::to_chars(buf, buf + sizeof buf, x, std::chars_format::fixed, 6);
  out.append(buf, r.ptr);
}

std::vector<std::string> split_on(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t p = 0;
  for (;;) {
    size_t q = s.find(sep, p);
    if (q == std::string::npos) {
      out.push_back(s.substr(p));
      return out;
    }
    out.push_back(s.substr(p, q - p));
    p = q + sep.size();
  }
}

std::vector<std::string> words(const std::string& s) { return split_on(s, " "); }

// ---- external counting: bounded memory, sorted runs on disk, k-way merge ------------------------

class Source {  // sorted (key, count) pairs, equal keys already summed
 public:
  virtual ~Source() = default;
  virtual bool next(std::string& key, uint64_t& count) = 0;
};

class MemorySource : public Source {
 public:
  explicit MemorySource(std::vector<std::pair<std::string, uint64_t>> items) : items_(std::move(items)) {}
  bool next(std::string& key, uint64_t& count) override {
    if (i_ >= items_.size()) return false;
    key = std::move(items_[i_].first);
    count = items_[i_].second;
    ++i_;
    return true;
  }

 private:
  std::vector<std::pair<std::string, uint64_t>> items_;
  size_t i_ = 0;
};

class RunReader {  // one run file of "key\tcount\n" lines
 public:
  explicit RunReader(const std::string& path) : in_(path, std::ios::binary) {
    if (!in_) throw std::runtime_error("cannot read sort run " + path);
  }
  bool next(std::string& key, uint64_t& count) {
    if (!std::getline(in_, line_)) return false;
    size_t tab = line_.rfind('\t');
    key.assign(line_, 0, tab);
    count = std::stoull(line_.substr(tab + 1));
    return true;
  }

 private:
  std::ifstream in_;
  std::string line_;
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

constexpr size_t kMaxFanIn = 64;

class ExternalCounter {
 public:
  ExternalCounter(std::string dir, std::string name, size_t max_items)
      : dir_(std::move(dir)), name_(std::move(name)), max_items_(std::max<size_t>(max_items, 1)) {}

  void add(std::string&& key, uint64_t count = 1) {
    counts_[std::move(key)] += count;
    if (counts_.size() >= max_items_) spill();
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
    if (runs_.empty()) return std::make_unique<MemorySource>(sorted_items());
    spill();
    while (runs_.size() > kMaxFanIn) {
      std::vector<std::string> group(runs_.begin(), runs_.begin() + kMaxFanIn);
      runs_.erase(runs_.begin(), runs_.begin() + kMaxFanIn);
      MergeSource merged(group);
      std::string path = run_path();
      write_run(path, merged);
      for (const auto& p : group)
        if (!external_.count(p)) std::remove(p.c_str());
      runs_.push_back(path);
    }
    return std::make_unique<MergeSource>(runs_);
  }

 private:
  std::vector<std::pair<std::string, uint64_t>> sorted_items() {
    std::vector<std::pair<std::string, uint64_t>> items;
    items.reserve(counts_.size());
    for (auto& kv : counts_) items.emplace_back(kv.first, kv.second);
    counts_.clear();
    std::sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    return items;
  }

  std::string run_path() { return dir_ + "/" + name_ + "-" + std::to_string(serial_++) + ".run"; }

  static void write_run(const std::string& path, Source& src) {
    std::ofstream out(path, std::ios::binary);
    if (!out) throw std::runtime_error("cannot write sort run " + path);
    std::string key;
    uint64_t count;
    while (src.next(key, count)) out << key << '\t' << count << '\n';
    if (!out) throw std::runtime_error("cannot write sort run " + path);
  }

  void spill() {
    if (counts_.empty()) return;
    MemorySource src(sorted_items());
    std::string path = run_path();
    write_run(path, src);
    runs_.push_back(path);
  }

  std::string dir_, name_;
  size_t max_items_;
  std::unordered_map<std::string, uint64_t> counts_;
  std::vector<std::string> runs_;
  std::set<std::string> external_;
  size_t serial_ = 0;
};

// ---- scoring -----------------------------------------------------------------------------------

using Points = std::vector<std::pair<int, int>>;

Points parse_points(const std::string& text) {
  Points out;
  size_t p = 0;
  while (p < text.size()) {
    size_t q = text.find(' ', p);
    if (q == std::string::npos) q = text.size();
    size_t dash = text.find('-', p);
    out.emplace_back(std::stoi(text.substr(p, dash - p)), std::stoi(text.substr(dash + 1, q - dash - 1)));
    p = q + 1;
  }
  return out;
}

// Alignments of one phrase pair with their counts, in first-seen order
using AlignCounts = std::vector<std::pair<std::string, uint64_t>>;

void add_count(AlignCounts& a, const std::string& key, uint64_t c) {
  for (auto& kv : a)
    if (kv.first == key) {
      kv.second += c;
      return;
    }
  a.emplace_back(key, c);
}

// phrase_scoring._best: the most frequent alignment; on a tie the largest vector over target
// positions of the sorted source positions aligned to each (Moses's FindBestAlignmentTargetToSource)
const std::string& best_alignment(const AlignCounts& counts, size_t n_tgt) {
  if (counts.size() == 1) return counts[0].first;
  uint64_t top = 0;
  for (const auto& kv : counts) top = std::max(top, kv.second);
  const std::string* best = nullptr;
  std::vector<std::vector<int>> best_vec;
  for (const auto& kv : counts) {
    if (kv.second != top) continue;
    std::vector<std::vector<int>> v(n_tgt);
    for (auto [i, j] : parse_points(kv.first)) v.at(static_cast<size_t>(j)).push_back(i);
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
  double get(const std::string& a, const std::string& b) const {
    key_.assign(a);
    key_ += ' ';
    key_ += b;
    auto it = table_.find(key_);
    return it == table_.end() ? 1.0 : it->second;
  }

 private:
  std::unordered_map<std::string, double> table_;
  mutable std::string key_;
};

// phrase_scoring.lexical_weight: Π_j mean_{i aligned to j} w(t_j|s_i), or w(t_j|NULL)
double lexical_weight(const std::vector<std::string>& src, const std::vector<std::string>& tgt, const Points& align,
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

// Consecutive records that share their first field (the ordering keeps them adjacent)
class Grouper {
 public:
  explicit Grouper(Source& src) : src_(src) { have_ = src_.next(key_, count_); }
  // the next group: its first field and the (fields, count) rows
  bool next(std::string& head, std::vector<std::pair<std::vector<std::string>, uint64_t>>& rows) {
    rows.clear();
    if (!have_) return false;
    auto f = split_on(key_, kSep);
    head = f[0];
    rows.emplace_back(std::move(f), count_);
    while ((have_ = src_.next(key_, count_))) {
      auto g = split_on(key_, kSep);
      if (g[0] != head) break;
      rows.emplace_back(std::move(g), count_);
    }
    return true;
  }

 private:
  Source& src_;
  std::string key_;
  uint64_t count_ = 0;
  bool have_ = false;
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
    std::vector<std::pair<int, int>> al;
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
            al.clear();
            for (int ei = start_e; ei <= end_e; ++ei)
              for (int fi : aligned_to_t[ei]) al.emplace_back(fi - start_f, ei - start_e);
            std::sort(al.begin(), al.end());   // (source, target) order, the pair's alignment
            int prev_o = orientation(is_aligned(start_f - 1, start_e - 1), is_aligned(end_f + 1, start_e - 1));
            int next_o = orientation(is_aligned(end_f + 1, end_e + 1), is_aligned(start_f - 1, end_e + 1));
            std::string sp = join(ss, start_f, end_f + 1), tp = join(tt, start_e, end_e + 1);
            std::string inv;
            for (size_t k = 0; k < al.size(); ++k) {
              if (k) inv += ' ';
              inv += std::to_string(al[k].second) + "-" + std::to_string(al[k].first);
            }
            // target-major order: the order in which Moses prints a pair's alignment
            std::vector<std::pair<int, int>> by_t(al);
            std::sort(by_t.begin(), by_t.end(), [](auto a, auto b) {
              return a.second != b.second ? a.second < b.second : a.first < b.first;
            });
            std::string dal;
            for (size_t k = 0; k < by_t.size(); ++k) {
              if (k) dal += ' ';
              dal += std::to_string(by_t[k].first) + "-" + std::to_string(by_t[k].second);
            }
            direct_.add(sp + kSep + tp + kSep + dal + kSep + kOrient[prev_o] + " " + kOrient[next_o]);
            inverse_.add(tp + kSep + sp + kSep + inv);
            ++extracted_;
          }
        }
      }
    }
    ++sentences_;
  }

  // phrase_scoring.build_phrase_tables' scoring half; returns (phrase pairs, source phrases)
  std::pair<int64_t, int64_t> write(const py::function& write_pt, const py::object& write_ro, double smoothing) {
    // inverse direction: count(e) and lex(f|e) per pair, re-sorted by source phrase for the join
    ExternalCounter inv_sorted(tmpdir_, "joined", max_items_);
    {
      auto src = inverse_.finish();
      Grouper groups(*src);
      std::string tp;
      std::vector<std::pair<std::vector<std::string>, uint64_t>> rows;
      while (groups.next(tp, rows)) {
        std::vector<std::pair<std::string, AlignCounts>> pairs;
        uint64_t count_e = 0;
        for (auto& [f, c] : rows) {
          if (pairs.empty() || pairs.back().first != f[1]) pairs.emplace_back(f[1], AlignCounts{});
          add_count(pairs.back().second, f[2], c);
          count_e += c;
        }
        auto tw = words(tp);
        for (auto& [sp, aligns] : pairs) {
          auto sw = words(sp);
          const std::string& best = best_alignment(aligns, sw.size());
          double lex = lexical_weight(tw, sw, parse_points(best), lex_fe_);
          inv_sorted.add(sp + kSep + tp + kSep + std::to_string(count_e) + " " + fmt_g(lex));
        }
      }
    }
    auto joined = inv_sorted.finish();
    auto direct = direct_.finish();
    Grouper groups(*direct);
    std::string sp, pt_buf, ro_buf, jkey;
    uint64_t jcount;
    std::vector<std::pair<std::vector<std::string>, uint64_t>> rows;
    int64_t phrase_pairs = 0, source_phrases = 0;
    const bool with_ro = !write_ro.is_none();
    struct Pair {
      std::string tp;
      uint64_t n = 0;
      AlignCounts aligns;
      std::array<uint64_t, 3> prev{0, 0, 0}, next{0, 0, 0};
    };
    auto orient_index = [](const std::string& o) { return o == "mono" ? 0 : (o == "swap" ? 1 : 2); };
    while (groups.next(sp, rows)) {
      ++source_phrases;
      std::vector<Pair> pairs;
      uint64_t count_f = 0;
      for (auto& [f, c] : rows) {
        if (pairs.empty() || pairs.back().tp != f[1]) {
          pairs.emplace_back();
          pairs.back().tp = f[1];
        }
        Pair& p = pairs.back();
        add_count(p.aligns, f[2], c);
        size_t space = f[3].find(' ');
        p.prev[orient_index(f[3].substr(0, space))] += c;
        p.next[orient_index(f[3].substr(space + 1))] += c;
        p.n += c;
        count_f += c;
      }
      auto sw = words(sp);
      for (const Pair& p : pairs) {
        const auto tw = words(p.tp);
        const std::string& best = best_alignment(p.aligns, tw.size());
        double lex_ef = lexical_weight(sw, tw, parse_points(best), lex_ef_);
        if (!joined->next(jkey, jcount)) throw std::runtime_error("phrase table halves out of step: inverse ended");
        auto j = split_on(jkey, kSep);
        if (j[0] != sp || j[1] != p.tp)
          throw std::runtime_error("phrase table halves out of step: " + sp + " / " + p.tp + " vs " + j[0] + " / " + j[1]);
        size_t space = j[2].find(' ');
        const std::string count_e_s = j[2].substr(0, space), lex_fe_s = j[2].substr(space + 1);
        double count_e = static_cast<double>(std::stoull(count_e_s));
        double n = static_cast<double>(p.n), cf = static_cast<double>(count_f);
        pt_buf += sp + kSep + p.tp + kSep + fmt_g(n / count_e) + " " + lex_fe_s + " " + fmt_g(n / cf) + " " +
                  fmt_g(lex_ef) + kSep + best + kSep + fmt_g(count_e) + " " + fmt_g(cf) + " " + fmt_g(n) + " ||| |||\n";
        if (with_ro) {
          ro_buf += sp + kSep + p.tp + kSep;
          for (const auto* counts : {&p.prev, &p.next}) {
            double total = static_cast<double>((*counts)[0] + (*counts)[1] + (*counts)[2]) + smoothing * 3;
            for (int o = 0; o < 3; ++o) {
              append_fixed6(ro_buf, (static_cast<double>((*counts)[o]) + smoothing) / total);
              ro_buf += ' ';
            }
          }
          ro_buf += '\n';
        }
        ++phrase_pairs;
      }
      if (pt_buf.size() > (1u << 20)) flush(pt_buf, ro_buf, write_pt, write_ro);
    }
    flush(pt_buf, ro_buf, write_pt, write_ro);
    return {phrase_pairs, source_phrases};
  }

  // the extraction half's result: the sorted direct and inverse runs (key<TAB>count lines)
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
  static std::string join(const std::vector<std::string>& w, int a, int b) {
    std::string s;
    for (int k = a; k < b; ++k) {
      if (k > a) s += ' ';
      s += w[k];
    }
    return s;
  }

  static void flush(std::string& pt, std::string& ro, const py::function& write_pt, const py::object& write_ro) {
    if (!pt.empty()) write_pt(py::str(pt));
    if (!ro.empty() && !write_ro.is_none()) write_ro(py::str(ro));
    pt.clear();
    ro.clear();
  }

  int max_len_;
  std::string tmpdir_;
  size_t max_items_;
  LexTable lex_ef_, lex_fe_;
  ExternalCounter direct_, inverse_;
  int64_t sentences_ = 0, extracted_ = 0;
};

}  // namespace

PYBIND11_MODULE(_phrases, m) {
  m.doc() = "Phrase extraction and scoring (cad.train.phrase_scoring's native engine)";
  py::class_<PhraseTables>(m, "PhraseTables")
      .def(py::init<int, const std::string&, size_t, const py::dict&, const py::dict&>(), py::arg("max_len"),
           py::arg("tmpdir"), py::arg("max_items"), py::arg("lex_ef"), py::arg("lex_fe"))
      .def("add", &PhraseTables::add, py::arg("src"), py::arg("tgt"), py::arg("points"))
      .def("write", &PhraseTables::write, py::arg("write_pt"), py::arg("write_ro"), py::arg("smoothing"))
      .def("write_runs", &PhraseTables::write_runs, py::arg("direct"), py::arg("inverse"))
      .def("add_runs", &PhraseTables::add_runs, py::arg("direct"), py::arg("inverse"))
      .def("sentences", &PhraseTables::sentences)
      .def("extracted", &PhraseTables::extracted);
}
