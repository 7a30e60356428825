// `cad lex` in C++: cad/train/lexical.py's write_lexical_tables (count_word_pairs over
// aligned_corpus) is the reference, and this writes its lex.f2e and lex.e2f byte for byte
// (tests/test_lex_native.py). The Python counter spent minutes of a large model's training in
// per-token tuple hashing; this one interns each word once and counts pairs of ids.
//
// The three inputs are streamed in step (cad/moses/_text.hpp: each read, and gunzipped, on a thread
// of its own), so memory is a few chunks of each, the words and the distinct pairs. Errors are the
// Python reader's, in the order it meets them (a file's bad UTF-8 before the next file's line,
// a line's inputs before its alignment's points), raised as LexError(message, path, line) for the
// caller to turn into a CadError.
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <numeric>
#include <string>
#include <string_view>
#include <unistd.h>
#include <unordered_map>
#include <vector>

#include "../moses/_pyerr.hpp"
#include "../moses/_text.hpp"

namespace py = pybind11;

namespace {

using sv = std::string_view;
constexpr sv kNull = "NULL";   // lexical.py's NULL: a word "NULL" in the corpus is counted with it, as there

using LexError = cadtext::UserError;
using cadtext::Interrupted;
using cadtext::check_signals;
using cadtext::py_repr;

// One input's lines as read_lines yields them: checked as UTF-8, without the newline and the
// carriage returns before it. A view is good until the next call.
class Lines {
 public:
  explicit Lines(std::string path) : path_(std::move(path)), reader_(path_, ends_with_gz(path_)) {}

  // false at the end of the file
  bool next(sv& line) {
    while (pos_ >= chunk_.size()) {
      if (!reader_.next(chunk_)) {
        if (!reader_.error().empty()) throw LexError{"cannot read: " + reader_.error(), path_, lineno_ + 1};
        return false;
      }
      pos_ = 0;
    }
    size_t nl = chunk_.find('\n', pos_);
    size_t stop = nl == std::string::npos ? chunk_.size() : nl;
    line = sv(chunk_).substr(pos_, stop - pos_);
    pos_ = stop + 1;
    lineno_++;
    size_t bad = cadtext::invalid_utf8(line);
    if (bad != sv::npos)
      throw LexError{"invalid UTF-8 at byte " + std::to_string(bad) + " of the line", path_, lineno_};
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  static bool ends_with_gz(const std::string& p) { return p.size() >= 3 && p.compare(p.size() - 3, 3, ".gz") == 0; }
  std::string path_;
  cadtext::ChunkReader reader_;
  std::string chunk_;
  size_t pos_ = 0;
  int64_t lineno_ = 0;
};

// The words seen, each stored once; ids in order of first sight
class Vocab {
 public:
  uint32_t id(sv w) {
    auto it = ids_.find(w);
    if (it != ids_.end()) return it->second;
    if (block_.empty() || block_.back().size() + w.size() > block_.back().capacity()) {
      block_.emplace_back();
      block_.back().reserve(std::max<size_t>(kBlock, w.size()));
    }
    std::string& b = block_.back();
    size_t at = b.size();
    b.append(w);                    // within the capacity: earlier views stay valid
    sv kept(b.data() + at, w.size());
    uint32_t k = static_cast<uint32_t>(words_.size());
    words_.push_back(kept);
    ids_.emplace(kept, k);
    return k;
  }
  sv word(uint32_t k) const { return words_[k]; }
  size_t size() const { return words_.size(); }

 private:
  static constexpr size_t kBlock = 1 << 20;
  std::deque<std::string> block_;
  std::vector<sv> words_;
  std::unordered_map<sv, uint32_t> ids_;
};

// Counts of (f id, e id) pairs: open addressing on the pair packed in 64 bits
class PairCounts {
 public:
  PairCounts() : keys_(1 << 16, kEmpty), counts_(1 << 16, 0) {}
  void add(uint32_t f, uint32_t e) {
    uint64_t key = (static_cast<uint64_t>(f) << 32) | e;
    size_t mask = keys_.size() - 1;
    for (size_t i = hash(key) & mask;; i = (i + 1) & mask) {
      if (keys_[i] == key) {
        counts_[i]++;
        return;
      }
      if (keys_[i] == kEmpty) {
        keys_[i] = key;
        counts_[i] = 1;
        if (++size_ * 2 > keys_.size()) grow();
        return;
      }
    }
  }
  // (key, count) of every pair, in no order
  std::vector<std::pair<uint64_t, uint64_t>> items() const {
    std::vector<std::pair<uint64_t, uint64_t>> out;
    out.reserve(size_);
    for (size_t i = 0; i < keys_.size(); i++)
      if (keys_[i] != kEmpty) out.emplace_back(keys_[i], counts_[i]);
    return out;
  }

 private:
  static constexpr uint64_t kEmpty = ~uint64_t(0);     // no word has id 2^32 - 1
  static uint64_t hash(uint64_t x) {                     // splitmix64's finalizer
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
  }
  void grow() {
    std::vector<uint64_t> keys(keys_.size() * 2, kEmpty), counts(keys_.size() * 2, 0);
    size_t mask = keys.size() - 1;
    for (size_t j = 0; j < keys_.size(); j++) {
      if (keys_[j] == kEmpty) continue;
      size_t i = hash(keys_[j]) & mask;
      while (keys[i] != kEmpty) i = (i + 1) & mask;
      keys[i] = keys_[j];
      counts[i] = counts_[j];
    }
    keys_.swap(keys);
    counts_.swap(counts);
  }
  std::vector<uint64_t> keys_, counts_;
  size_t size_ = 0;
};

// is_uint: ASCII digits, at least one
bool is_uint(sv s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// int() of ASCII digits, saturated: a position past every sentence's length stays past it
uint64_t to_position(sv s) {
  uint64_t v = 0;
  for (char c : s) {
    if (v > (uint64_t(1) << 40)) return v;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

class Counter {
 public:
  Counter(std::string src, std::string tgt, std::string align) : src_(src), tgt_(tgt), align_(align) {
    null_ = vocab_.id(kNull);
  }

  // every line of the three files, as count_word_pairs(aligned_corpus(src, tgt, align)) counts them;
  // the number of lines
  int64_t run() {
    Lines* files[3] = {&src_, &tgt_, &align_};
    sv line[3];
    int64_t lineno = 0;
    for (;;) {
      // as read_parallel: every file's next line read, in order, before an end is judged
      bool ended[3];
      int n_ended = 0;
      for (int k = 0; k < 3; k++) {
        ended[k] = !files[k]->next(line[k]);
        n_ended += ended[k];
      }
      if (n_ended == 3) return lineno;
      if (n_ended > 0) {
        std::string longer;
        int first_ended = -1;
        for (int k = 0; k < 3; k++) {
          if (ended[k]) {
            if (first_ended < 0) first_ended = k;
          } else {
            longer += (longer.empty() ? "" : ", ") + files[k]->path();
          }
        }
        throw LexError{"has " + std::to_string(lineno) + " lines but " + longer +
                           " has more: parallel files must have the same number of lines",
                       files[first_ended]->path(), lineno + 1};
      }
      lineno++;
      add(line[0], line[1], line[2], lineno);
      if (lineno % 65536 == 0) check_signals();
    }
  }

  // lex.f2e and lex.e2f to the two descriptors, the pairs sorted by (f, e) as Python sorts them
  void write(int fd_f2e, const std::string& name_f2e, int fd_e2f, const std::string& name_e2f) {
    // a word's rank in code point order, which is UTF-8's byte order
    std::vector<uint32_t> by_word(vocab_.size());
    std::iota(by_word.begin(), by_word.end(), 0u);
    std::sort(by_word.begin(), by_word.end(), [&](uint32_t a, uint32_t b) { return vocab_.word(a) < vocab_.word(b); });
    std::vector<uint32_t> rank(vocab_.size());
    for (uint32_t r = 0; r < by_word.size(); r++) rank[by_word[r]] = r;
    auto items = pairs_.items();
    std::sort(items.begin(), items.end(), [&](const auto& a, const auto& b) {
      uint32_t fa = rank[a.first >> 32], fb = rank[b.first >> 32];
      if (fa != fb) return fa < fb;
      return rank[a.first & 0xffffffffu] < rank[b.first & 0xffffffffu];
    });
    Output f2e(fd_f2e, name_f2e), e2f(fd_e2f, name_e2f);
    for (const auto& [key, c] : items) {
      uint32_t f = static_cast<uint32_t>(key >> 32), e = static_cast<uint32_t>(key & 0xffffffffu);
      line(f2e.buf, vocab_.word(e), vocab_.word(f), c, total_f_[f]);
      line(e2f.buf, vocab_.word(f), vocab_.word(e), c, total_e_[e]);
      f2e.maybe_flush();
      e2f.maybe_flush();
    }
    f2e.flush();
    e2f.flush();
  }

 private:
  // the buffered output of a table, written to the caller's descriptor (its temporary file)
  struct Output {
    Output(int fd, std::string name) : fd(fd), name(std::move(name)) { buf.reserve(kFlush + 4096); }
    static constexpr size_t kFlush = 1 << 20;
    void maybe_flush() {
      if (buf.size() >= kFlush) flush();
    }
    void flush() {
      const char* p = buf.data();
      size_t left = buf.size();
      while (left > 0) {
        ssize_t n = ::write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
          throw LexError{std::string("cannot write: ") + (n < 0 ? std::strerror(errno) : "nothing written") +
                             "; nothing was written there",
                         name};
        p += n;
        left -= static_cast<size_t>(n);
      }
      buf.clear();
    }
    int fd;
    std::string name, buf;
  };

  // `a b p`, p = c/total with 7 decimals: the double Python's int division gives (both counts are
  // below 2^53, so it is the quotient of the two doubles, rounded once) and the digits its format
  // gives (to_chars is printf's %.7f: the exact binary value rounded half to even, as Python does)
  static void line(std::string& out, sv a, sv b, uint64_t c, uint64_t total) {
    out.append(a);
    out += ' ';
    out.append(b);
    out += ' ';
    char num[64];
    auto r = std::to_chars(num, num + sizeof num, static_cast<double>(c) / static_cast<double>(total),
                           std::chars_format::fixed, 7);
    out.append(num, r.ptr);
    out += '\n';
  }

  uint32_t word_id(sv w) {
    uint32_t k = vocab_.id(w);
    if (k >= total_f_.size()) {
      total_f_.resize(k + 1, 0);
      total_e_.resize(k + 1, 0);
    }
    return k;
  }

  void add(sv s, sv t, sv a, int64_t lineno) {
    cadtext::split(s, ss_);
    cadtext::split(t, tt_);
    if (ss_.empty() || tt_.empty())
      throw LexError{"empty sentence in aligned corpus", ss_.empty() ? src_.path() : tgt_.path(), lineno};
    // parse_alignment: every point checked before any is counted
    cadtext::split(a, toks_);
    points_.clear();
    for (sv tok : toks_) {
      size_t dash = tok.find('-');
      sv i = dash == sv::npos ? sv() : tok.substr(0, dash), j = dash == sv::npos ? sv() : tok.substr(dash + 1);
      if (dash == sv::npos || !is_uint(i) || !is_uint(j))
        throw LexError{"malformed alignment point " + py_repr(tok) + " (expected i-j)", align_.path(), lineno};
      uint64_t x = to_position(i), y = to_position(j);
      if (x >= ss_.size() || y >= tt_.size())
        throw LexError{"alignment point " + std::string(tok) + " out of range for " + std::to_string(ss_.size()) +
                           " source and " + std::to_string(tt_.size()) + " target tokens",
                       align_.path(), lineno};
      points_.emplace_back(static_cast<uint32_t>(x), static_cast<uint32_t>(y));
    }
    sid_.resize(ss_.size());
    tid_.resize(tt_.size());
    for (size_t k = 0; k < ss_.size(); k++) sid_[k] = word_id(ss_[k]);
    for (size_t k = 0; k < tt_.size(); k++) tid_[k] = word_id(tt_[k]);
    src_aligned_.assign(ss_.size(), 0);
    tgt_aligned_.assign(tt_.size(), 0);
    // every point counts, a repeated one too, as in count_word_pairs
    for (auto [i, j] : points_) {
      src_aligned_[i] = tgt_aligned_[j] = 1;
      count(sid_[i], tid_[j]);
    }
    for (size_t j = 0; j < tt_.size(); j++)
      if (!tgt_aligned_[j]) count(null_, tid_[j]);
    for (size_t i = 0; i < ss_.size(); i++)
      if (!src_aligned_[i]) count(sid_[i], null_);
  }

  void count(uint32_t f, uint32_t e) {
    pairs_.add(f, e);
    total_f_[f]++;
    total_e_[e]++;
  }

  Lines src_, tgt_, align_;
  Vocab vocab_;
  uint32_t null_;
  PairCounts pairs_;
  std::vector<uint64_t> total_f_, total_e_;
  std::vector<sv> ss_, tt_, toks_;
  std::vector<uint32_t> sid_, tid_;
  std::vector<char> src_aligned_, tgt_aligned_;
  std::vector<std::pair<uint32_t, uint32_t>> points_;
};

PyObject* g_lex_error = nullptr;

// `work` without the GIL; a LexError raised as the module's LexError(message, path, line)
template <class F>
void run_released(F&& work) {
  try {
    py::gil_scoped_release nogil;
    work();
  } catch (const LexError& e) {
    py::object line = e.line > 0 ? py::object(py::int_(e.line)) : py::object(py::none());
    PyErr_SetObject(g_lex_error, py::make_tuple(e.message, py::str(e.path), line).ptr());
    throw py::error_already_set();
  } catch (const Interrupted&) {
    throw py::error_already_set();
  }
}

// Counting and writing apart, as the Python writer does them: an input's error comes before an
// output's, and nothing is written until every line is counted
class Tables {
 public:
  Tables(std::string src, std::string tgt, std::string align)
      : src_(std::move(src)), tgt_(std::move(tgt)), align_(std::move(align)) {}
  int64_t count() {
    int64_t lines = 0;
    run_released([&] {
      counter_ = std::make_unique<Counter>(src_, tgt_, align_);
      lines = counter_->run();
    });
    return lines;
  }
  void write(int fd_f2e, const std::string& name_f2e, int fd_e2f, const std::string& name_e2f) {
    if (!counter_) throw std::logic_error("count() first");
    run_released([&] { counter_->write(fd_f2e, name_f2e, fd_e2f, name_e2f); });
  }

 private:
  std::string src_, tgt_, align_;
  std::unique_ptr<Counter> counter_;
};

// f"{c / total:.7f}", for the tests
std::string ratio_text(uint64_t c, uint64_t total) {
  char num[64];
  auto r = std::to_chars(num, num + sizeof num, static_cast<double>(c) / static_cast<double>(total),
                         std::chars_format::fixed, 7);
  return std::string(num, r.ptr);
}

}  // namespace

PYBIND11_MODULE(_lex, m) {
  m.doc() = "cad lex's counter of aligned word pairs (cad.train.lexical_native)";
  g_lex_error = PyErr_NewException("cad.train._lex.LexError", PyExc_Exception, nullptr);
  m.attr("LexError") = py::handle(g_lex_error);
  py::class_<Tables>(m, "Tables")
      .def(py::init<std::string, std::string, std::string>(), py::arg("src"), py::arg("tgt"), py::arg("align"))
      .def("count", &Tables::count, "Count the word pairs of the aligned corpus; the number of sentence pairs")
      .def("write", &Tables::write, py::arg("fd_f2e"), py::arg("name_f2e"), py::arg("fd_e2f"), py::arg("name_e2f"),
           "Write lex.f2e and lex.e2f to the two descriptors");
  m.def("ratio_text", &ratio_text, py::arg("c"), py::arg("total"), "f\"{c / total:.7f}\" as the tables write it");
}
