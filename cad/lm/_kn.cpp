// Interpolated modified Kneser-Ney in C++ (cad/lm/kneser_ney.py is the reference): `cad lm` spent
// its time in Python dictionaries of string tuples. The n-grams here are word ids in open-addressing
// tables; every probability is the same double as the Python estimate computes (same operations in
// the same order, no fused multiply-add), and the ARPA text is byte-identical to write_arpa's
// (tests/test_lm.py compares them). The discounts come from Python (compute_discounts), so that
// their maths and their error stay in one place.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <stdexcept>
#include <string>
#include <deque>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

constexpr uint32_t kBos = 0, kEos = 1, kUnk = 2;

// n-grams of one length: keys stored flat (n ids per entry) in insertion order, found by hash
class NgramTable {
 public:
  explicit NgramTable(int n) : n_(n), slots_(1024, -1) {}

  int n() const { return n_; }
  size_t size() const { return counts_.size(); }
  const uint32_t* key(size_t i) const { return keys_.data() + i * n_; }
  uint64_t& count(size_t i) { return counts_[i]; }
  uint64_t count(size_t i) const { return counts_[i]; }

  // index of `k`, inserted with count 0 if absent
  size_t insert(const uint32_t* k) {
    size_t mask = slots_.size() - 1;
    for (size_t s = hash(k) & mask;; s = (s + 1) & mask) {
      int64_t e = slots_[s];
      if (e < 0) {
        slots_[s] = static_cast<int64_t>(counts_.size());
        keys_.insert(keys_.end(), k, k + n_);
        counts_.push_back(0);
        if (counts_.size() * 2 > slots_.size()) grow();
        return counts_.size() - 1;
      }
      if (std::equal(k, k + n_, key(static_cast<size_t>(e)))) return static_cast<size_t>(e);
    }
  }

  // index of `k`, or -1
  int64_t find(const uint32_t* k) const {
    size_t mask = slots_.size() - 1;
    for (size_t s = hash(k) & mask;; s = (s + 1) & mask) {
      int64_t e = slots_[s];
      if (e < 0) return -1;
      if (std::equal(k, k + n_, key(static_cast<size_t>(e)))) return e;
    }
  }

 private:
  size_t hash(const uint32_t* k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < n_; ++i) {
      h ^= k[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return static_cast<size_t>(h ^ (h >> 29));
  }

  void grow() {
    std::vector<int64_t> bigger(slots_.size() * 2, -1);
    size_t mask = bigger.size() - 1;
    for (size_t e = 0; e < counts_.size(); ++e) {
      size_t s = hash(key(e)) & mask;
      while (bigger[s] >= 0) s = (s + 1) & mask;
      bigger[s] = static_cast<int64_t>(e);
    }
    slots_.swap(bigger);
  }

  int n_;
  std::vector<uint32_t> keys_;
  std::vector<uint64_t> counts_;
  std::vector<int64_t> slots_;
};

// printf's %.9g, which is what Python's f"{v:.9g}" writes (std::to_chars is specified as printf)
std::string format_g9(double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
  return std::string(buf, r.ptr);
}

// as arpa._log10: log10, or -99 for a zero probability
std::string log10_text(double p) { return format_g9(p > 0 ? std::log10(p) : -99.0); }

class KneserNeyCounter {
 public:
  explicit KneserNeyCounter(int order) : order_(order) {
    if (order < 1) throw std::invalid_argument("language model order must be at least 1");
    for (const char* w : {"<s>", "</s>", "<unk>"}) id(w);
    for (int n = 1; n <= order; ++n) starts_.emplace_back(n);
    top_.emplace_back(order);
  }

  // sentences separated by '\n', tokens by single spaces, no empty sentence
  void add(std::string_view text) {
    if (adjusted_done_) throw std::logic_error("add() after the counts were adjusted");
    std::vector<uint32_t> w;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      w.assign(1, kBos);
      size_t p = pos;
      while (p < end) {
        size_t q = text.find(' ', p);
        if (q == std::string_view::npos || q > end) q = end;
        uint32_t t = id(text.substr(p, q - p));
        if (t == kBos || t == kEos) reserved_ = true;
        w.push_back(t);
        p = q + 1;
      }
      w.push_back(kEos);
      ++sentences_;
      count_sentence(w);
      pos = end + 1;
    }
  }

  int64_t sentences() const { return sentences_; }
  bool reserved() const { return reserved_; }

  // per order, the number of n-grams whose adjusted count is 1, 2, 3 and 4
  std::vector<std::array<uint64_t, 4>> counts_of_counts() {
    adjust();
    std::vector<std::array<uint64_t, 4>> out(order_, std::array<uint64_t, 4>{0, 0, 0, 0});
    for (int n = 0; n < order_; ++n) {
      const NgramTable& t = adjusted_[n];
      for (size_t i = 0; i < t.size(); ++i) {
        if (n == 0 && i == bos_unigram_) continue;
        uint64_t c = t.count(i);
        if (c >= 1 && c <= 4) ++out[n][c - 1];
      }
    }
    return out;
  }

  // the ARPA text, handed to `write` in pieces
  void write_arpa(const std::vector<std::array<double, 3>>& discounts, const py::function& write) {
    adjust();
    if (static_cast<int>(discounts.size()) != order_) throw std::invalid_argument("one discount triple per order");
    std::vector<std::vector<double>> prob(order_);
    std::vector<NgramTable> contexts;       // contexts[n]: the (n)-word contexts of the (n+1)-grams
    std::vector<std::vector<double>> gamma;
    for (int n = 0; n < order_; ++n) {
      const NgramTable& t = adjusted_[n];
      const auto& d = discounts[n];
      NgramTable ctx(std::max(n, 1));
      std::vector<uint64_t> denom;
      std::vector<std::array<uint64_t, 3>> nk;
      std::vector<size_t> of(t.size());
      uint32_t none = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        if (n == 0 && i == bos_unigram_) continue;
        size_t c = n == 0 ? ctx.insert(&none) : ctx.insert(t.key(i));
        if (c == denom.size()) {
          denom.push_back(0);
          nk.push_back({0, 0, 0});
        }
        of[i] = c;
        uint64_t a = t.count(i);
        denom[c] += a;
        if (a > 0) ++nk[c][std::min<uint64_t>(a, 3) - 1];
      }
      std::vector<double> g(denom.size());
      for (size_t c = 0; c < denom.size(); ++c)
        g[c] = denom[c] > 0 ? (d[0] * static_cast<double>(nk[c][0]) + d[1] * static_cast<double>(nk[c][1]) +
                               d[2] * static_cast<double>(nk[c][2])) /
                                  static_cast<double>(denom[c])
                            : 1.0;
      std::vector<double>& p = prob[n];
      p.assign(t.size(), 0.0);
      double uniform = 1.0 / static_cast<double>(vocab_size_);
      for (size_t i = 0; i < t.size(); ++i) {
        if (n == 0 && i == bos_unigram_) continue;
        uint64_t a = t.count(i);
        double base = uniform;
        if (n > 0) {
          int64_t lower = adjusted_[n - 1].find(t.key(i) + 1);
          if (lower < 0) throw std::logic_error("an n-gram's suffix is missing from the lower order");
          base = prob[n - 1][static_cast<size_t>(lower)];
        }
        double disc = a > 0 ? d[std::min<uint64_t>(a, 3) - 1] : 0.0;
        double uninterp = denom[of[i]] > 0 ? (static_cast<double>(a) - disc) / static_cast<double>(denom[of[i]]) : 0.0;
        p[i] = uninterp + g[of[i]] * base;
      }
      contexts.push_back(std::move(ctx));
      gamma.push_back(std::move(g));
    }

    std::vector<uint32_t> rank = word_ranks();
    std::string buf = "\\data\\\n";
    for (int n = 0; n < order_; ++n) buf += "ngram " + std::to_string(n + 1) + "=" + std::to_string(adjusted_[n].size()) + "\n";
    for (int n = 0; n < order_; ++n) {
      const NgramTable& t = adjusted_[n];
      int len = n + 1;
      buf += "\n\\" + std::to_string(len) + "-grams:\n";
      std::vector<size_t> idx(t.size());
      std::iota(idx.begin(), idx.end(), 0);
      std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        const uint32_t *ka = t.key(a), *kb = t.key(b);
        for (int k = 0; k < len; ++k)
          if (ka[k] != kb[k]) return rank[ka[k]] < rank[kb[k]];
        return false;
      });
      const bool with_backoff = len < order_;
      for (size_t i : idx) {
        const uint32_t* k = t.key(i);
        bool bos = n == 0 && i == bos_unigram_;
        buf += bos ? std::string("0") : log10_text(prob[n][i]);
        buf += '\t';
        for (int j = 0; j < len; ++j) {
          if (j) buf += ' ';
          buf += words_[k[j]];
        }
        if (with_backoff) {
          double bo = 1.0;
          if (k[len - 1] != kEos && k[len - 1] != kUnk) {
            int64_t c = contexts[n + 1].find(k);
            if (c >= 0) bo = gamma[n + 1][static_cast<size_t>(c)];
          }
          buf += '\t';
          buf += bo != 1.0 ? log10_text(bo) : std::string("0");
        }
        buf += '\n';
        if (buf.size() > (1u << 20)) flush(buf, write);
      }
    }
    buf += "\n\\end\\\n";
    flush(buf, write);
  }

 private:
  uint32_t id(std::string_view w) {
    auto it = ids_.find(w);
    if (it != ids_.end()) return it->second;
    uint32_t i = static_cast<uint32_t>(words_.size());
    words_.emplace_back(w);
    ids_.emplace(words_.back(), i);
    return i;
  }

  void count_sentence(const std::vector<uint32_t>& w) {
    const int len = static_cast<int>(w.size());
    NgramTable& top = top_[0];
    for (int i = 0; i + order_ <= len; ++i) ++top.count(top.insert(&w[i]));
    // n-grams that begin at <s> keep raw counts at every order below the highest (a padded
    // sentence shorter than the order is itself such an n-gram)
    for (int n = 1; n < std::min(order_, len + 1); ++n) ++starts_[n - 1].count(starts_[n - 1].insert(&w[0]));
  }

  void adjust() {
    if (adjusted_done_) return;
    adjusted_done_ = true;
    for (int n = 1; n <= order_; ++n) adjusted_.emplace_back(n);
    adjusted_[order_ - 1] = std::move(top_[0]);
    for (int n = order_ - 1; n >= 1; --n) {
      const NgramTable& higher = adjusted_[n];
      NgramTable& cur = adjusted_[n - 1];
      for (size_t i = 0; i < higher.size(); ++i) ++cur.count(cur.insert(higher.key(i) + 1));
      const NgramTable& s = starts_[n - 1];
      for (size_t i = 0; i < s.size(); ++i) cur.count(cur.insert(s.key(i))) = s.count(i);
    }
    NgramTable& uni = adjusted_[0];
    // <s> is never predicted: it stays in the table (it is a context and is written with
    // probability 0) but not among the counts; <unk> and </s> get only the interpolation mass
    bos_unigram_ = uni.insert(&kBos);
    uni.insert(&kUnk);
    uni.insert(&kEos);
    vocab_size_ = uni.size() - 1;
  }

  // ids ordered as Python orders str: by code point, which is UTF-8's byte order
  std::vector<uint32_t> word_ranks() const {
    std::vector<uint32_t> order(words_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return words_[a] < words_[b]; });
    std::vector<uint32_t> rank(words_.size());
    for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<uint32_t>(r);
    return rank;
  }

  static void flush(std::string& buf, const py::function& write) {
    write(py::bytes(buf));
    buf.clear();
  }

  int order_;
  std::deque<std::string> words_;                  // a deque: ids_ views its strings, which must not move
  std::unordered_map<std::string_view, uint32_t> ids_;
  std::vector<NgramTable> top_, starts_, adjusted_;
  bool adjusted_done_ = false, reserved_ = false;
  int64_t sentences_ = 0;
  size_t bos_unigram_ = 0, vocab_size_ = 0;
};

}  // namespace

PYBIND11_MODULE(_kn, m) {
  m.doc() = "Modified Kneser-Ney counting and ARPA writing (cad.lm.kneser_ney's native engine)";
  py::class_<KneserNeyCounter>(m, "KneserNeyCounter")
      .def(py::init<int>(), py::arg("order"))
      .def("add", [](KneserNeyCounter& c, const std::string& text) { c.add(text); }, py::arg("text"))
      .def("sentences", &KneserNeyCounter::sentences)
      .def("reserved", &KneserNeyCounter::reserved)
      .def("counts_of_counts", &KneserNeyCounter::counts_of_counts)
      .def("write_arpa", &KneserNeyCounter::write_arpa, py::arg("discounts"), py::arg("write"));
}
