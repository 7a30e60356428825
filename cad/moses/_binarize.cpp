// `cad binarize`'s writer in C++: cad/moses/binarized.py's binarize_phrase_table and
// binarize_reordering_table (with their Pruner and KeptPairs) are the reference, and this writes
// their files byte for byte (tests/test_binarize_native.py). The Python writer spent its time in
// per-line string and struct work: a large model took a quarter of an hour.
//
// The text table is streamed (cad/moses/_text.hpp: gunzipped on a second thread), one run of
// lines with the same source phrase held at a time; what grows with the table is the index, 16
// bytes a record (a run), which is the index's own layout, sorted in place at the end. Errors are
// the Python writer's, in the same order, raised as TableError(message, path, line) for the caller
// to turn into a CadError; the few messages that quote the text with repr() ask Python for it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <system_error>
#include <thread>
#include <unistd.h>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "_pyerr.hpp"
#include "_text.hpp"

namespace py = pybind11;

namespace {

using sv = std::string_view;
constexpr sv kSep = " ||| ";
constexpr size_t kHeaderSize = 128;
constexpr int kPruneScore = 2;              // p(e|f), the third score: Moses's filter-pt ranks by it
constexpr size_t kMaxU16 = 0xFFFF;

using TableError = cadtext::UserError;
using cadtext::Interrupted;
using cadtext::check_signals;
using cadtext::py_repr;

// A decimal float() reads as from_chars does: [+-]digits[.digits][(e|E)[+-]digits]
bool plain_decimal(sv t) {
  size_t i = 0, n = t.size(), digits = 0;
  if (i < n && (t[i] == '+' || t[i] == '-')) i++;
  while (i < n && t[i] >= '0' && t[i] <= '9') i++, digits++;
  if (i < n && t[i] == '.') {
    i++;
    while (i < n && t[i] >= '0' && t[i] <= '9') i++, digits++;
  }
  if (digits == 0) return false;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    if (i < n && (t[i] == '+' || t[i] == '-')) i++;
    size_t start = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') i++;
    if (i == start) return false;
  }
  return i == n;
}

// float(text), the double Python reads: a plain decimal by from_chars (rounded correctly, as
// Python's reader rounds); anything else (underscores, nan, inf, another script's digits, a value
// out of range) by Python's float() itself. False: float() refuses it.
bool parse_float(sv t, double& out) {
  if (plain_decimal(t)) {
    const char* b = t.data() + (t[0] == '+');
    auto r = std::from_chars(b, t.data() + t.size(), out);
    if (r.ec == std::errc() && r.ptr == t.data() + t.size()) return true;
  }
  py::gil_scoped_acquire gil;
  try {
    out = py::module_::import("builtins").attr("float")(py::str(t.data(), t.size())).cast<double>();
    return true;
  } catch (py::error_already_set& e) {
    if (e.matches(PyExc_ValueError)) return false;
    throw;
  }
}

// is_uint: ASCII digits, at least one
bool is_uint(sv s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The leftmost " ||| " at or after `from`: found by its bars, which are rare in a table, where
// the spaces that start it are everywhere
size_t find_sep(sv s, size_t from) {
  size_t q = from + 1;
  while (q < s.size()) {
    const void* bar = std::memchr(s.data() + q, '|', s.size() - q);
    if (!bar) return sv::npos;
    q = static_cast<const char*>(bar) - s.data();
    if (q + 4 <= s.size() && s.compare(q - 1, kSep.size(), kSep) == 0) return q - 1;
    q++;
  }
  return sv::npos;
}

// The first fields of "a ||| b ||| c ||| d ||| ...", as line.split(" ||| ") has them; the number
// of fields, counted up to 4 (no caller needs more)
size_t split_fields(sv s, sv out[4]) {
  size_t n = 0, p = 0;
  while (n < 4) {
    size_t q = find_sep(s, p);
    if (q == sv::npos) {
      out[n++] = s.substr(p);
      break;
    }
    out[n++] = s.substr(p, q - p);
    p = q + kSep.size();
  }
  return n;
}

template <class T>
void append_le(std::string& out, T v) {         // x86 and ARM Linux: the file's little-endian order
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// ---- output -------------------------------------------------------------------------------------

std::string write_error(const std::string& what) { return "cannot write: " + what + "; nothing was written there"; }

// cad's rule for a file's compression: the name ends in .gz
bool gz_name(const std::string& path) { return path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0; }

// The binary file, through the descriptor of the caller's temporary (renamed into place by it)
class Output {
 public:
  Output(int fd, std::string name) : fd_(fd), name_(std::move(name)) { buf_.reserve(kFlush + (1 << 16)); }
  void put(const void* p, size_t n) {
    at_ += n;
    if (n >= kFlush) {              // the index's entries: written from where they are, not copied
      flush();
      write_all(static_cast<const char*>(p), n);
      return;
    }
    buf_.append(static_cast<const char*>(p), n);
    if (buf_.size() >= kFlush) flush();
  }
  void put(sv s) { put(s.data(), s.size()); }
  template <class T>
  void put_le(T v) { put(&v, sizeof v); }
  uint64_t at() const { return at_; }
  void flush() {
    write_all(buf_.data(), buf_.size());
    buf_.clear();
  }
  void write_at(uint64_t offset, const std::string& bytes) {
    if (::pwrite(fd_, bytes.data(), bytes.size(), static_cast<off_t>(offset)) != static_cast<ssize_t>(bytes.size()))
      throw TableError{write_error(std::strerror(errno)), name_};
  }

 private:
  static constexpr size_t kFlush = 8 << 20;
  void write_all(const char* p, size_t left) {
    while (left > 0) {
      ssize_t n = ::write(fd_, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) throw TableError{write_error(n < 0 ? std::strerror(errno) : "nothing written"), name_};
      p += n;
      left -= n;
    }
  }
  int fd_;
  std::string name_;
  std::string buf_;
  uint64_t at_ = 0;
};

// A record's entry in the index, as the file lays it out: the key's CRC-32 and the record's offset
struct IndexEntry {
  uint64_t crc, offset;
};

// The index entries, grown with realloc: glibc moves a block this large by remapping its pages,
// so growing never holds two copies (a std::vector would, for a moment, 1.5 times its size)
class IndexEntries {
 public:
  IndexEntries() = default;
  IndexEntries(const IndexEntries&) = delete;
  IndexEntries& operator=(const IndexEntries&) = delete;
  ~IndexEntries() { std::free(p_); }
  void push(IndexEntry e) {
    if (n_ == cap_) {
      size_t cap = cap_ ? cap_ * 2 : 1 << 16;
      auto* p = static_cast<IndexEntry*>(std::realloc(p_, cap * sizeof(IndexEntry)));
      if (!p) throw std::bad_alloc();
      p_ = p;
      cap_ = cap;
    }
    p_[n_++] = e;
  }
  size_t size() const { return n_; }
  IndexEntry* begin() { return p_; }
  IndexEntry* end() { return p_ + n_; }

 private:
  IndexEntry* p_ = nullptr;
  size_t n_ = 0, cap_ = 0;
};

// binarized.py's _Writer: the header, the records, the index
class TableFile {
 public:
  TableFile(Output& out, const char* magic, uint32_t num_scores, uint64_t prune, const std::string& text)
      : out_(out), magic_(magic, 8), num_scores_(num_scores), prune_(prune), text_(text) {
    std::string zeros(kHeaderSize, '\0');
    out_.put(zeros);
  }
  uint32_t longest = 0;
  Output& out() { return out_; }

  // A record's start: the key; `line`, where its run began, for the error of a key too long
  void begin_record(sv key, int64_t line, uint32_t count) {
    if (key.size() > kMaxU16)
      throw TableError{"a key of " + std::to_string(key.size()) + " bytes: longer than cad's binary tables take",
                       text_, line};
    index_.push({crc32(0L, reinterpret_cast<const Bytef*>(key.data()), static_cast<uInt>(key.size())), out_.at()});
    out_.put_le<uint16_t>(static_cast<uint16_t>(key.size()));
    out_.put(key);
    out_.put_le<uint32_t>(count);
  }

  void finish(uint64_t size, uint64_t mtime) {
    uint64_t n = index_.size();
    // 1 << (n - 1).bit_length(), with Python's (-1).bit_length() == 1 for no records
    uint64_t buckets = n == 0 ? 2 : n == 1 ? 1 : uint64_t(1) << (64 - __builtin_clzll(n - 1));
    uint64_t mask = buckets - 1;
    // by bucket, then by offset: the offsets are distinct, so the order is the stable one
    std::sort(index_.begin(), index_.end(), [mask](const IndexEntry& a, const IndexEntry& b) {
      uint64_t ba = a.crc & mask, bb = b.crc & mask;
      return ba != bb ? ba < bb : a.offset < b.offset;
    });
    uint64_t pad = (8 - out_.at() % 8) % 8;
    static const char zeros[8] = {};
    out_.put(zeros, pad);
    uint64_t index = out_.at();
    const IndexEntry* e = index_.begin();
    uint64_t j = 0;
    for (uint64_t b = 0; b <= buckets; b++) {        // each bucket's first entry: those of lower buckets
      while (j < n && (e[j].crc & mask) < b) j++;
      out_.put_le<uint64_t>(j);
    }
    out_.put(index_.begin(), n * sizeof(IndexEntry));
    out_.flush();
    std::string header = magic_;
    append_le<uint32_t>(header, num_scores_);
    append_le<uint32_t>(header, longest);
    for (uint64_t v : {n, buckets, index, size, mtime, prune_}) append_le<uint64_t>(header, v);
    out_.write_at(0, header);
  }

 private:
  Output& out_;
  std::string magic_;
  uint32_t num_scores_;
  uint64_t prune_;
  const std::string& text_;
  IndexEntries index_;
};

// ---- the lines of a text table ------------------------------------------------------------------

// Every line of `path` to `fn(line, lineno)` as read_lines yields it (checked as UTF-8, without
// its newline and trailing carriage returns); the number of lines
template <class F>
int64_t for_each_line(const std::string& path, bool gz, F&& fn) {
  cadtext::ChunkReader reader(path, gz);
  std::string chunk;
  int64_t lineno = 0;
  while (reader.next(chunk)) {
    const char* p = chunk.data();
    const char* end = p + chunk.size();
    while (p < end) {
      const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
      const char* stop = nl ? nl : end;
      sv line(p, stop - p);
      lineno++;
      size_t bad = cadtext::invalid_utf8(line);
      if (bad != sv::npos)
        throw TableError{"invalid UTF-8 at byte " + std::to_string(bad) + " of the line", path, lineno};
      while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      fn(line, lineno);
      p = nl ? nl + 1 : end;
    }
    check_signals();
  }
  if (!reader.error().empty()) throw TableError{"cannot read: " + reader.error(), path, lineno + 1};
  return lineno;
}

// What the lines of both tables share: the fields, the scores, a run of entries of one source
class LineParser {
 public:
  LineParser(const std::string& path, size_t num_scores, std::string scores_what)
      : path_(path), num_scores_(num_scores), scores_what_(std::move(scores_what)) {}

 protected:
  // line.split(" ||| "), at least three fields
  size_t fields(sv line, int64_t lineno) {
    size_t n = split_fields(line, f_);
    if (n < 3) throw TableError{"expected 'source ||| target ||| scores'", path_, lineno};
    return n;
  }
  // binarized.py's _scores: the scores of field 3 appended as f64
  void scores(std::string& out, int64_t lineno) {
    cadtext::split(f_[2], words_);
    if (words_.size() != num_scores_)
      throw TableError{std::to_string(words_.size()) + " scores, but " + scores_what_, path_, lineno};
    for (sv w : words_) {
      double x;
      if (!parse_float(w, x)) throw TableError{"non-numeric score in " + py_repr(f_[2]), path_, lineno};
      append_le<double>(out, x);
    }
  }
  void check_target(size_t bytes, int64_t lineno) {
    if (bytes > kMaxU16)
      throw TableError{"a target phrase of " + std::to_string(bytes) + " bytes: longer than cad's binary tables take",
                       path_, lineno};
  }

  const std::string& path_;
  size_t num_scores_;
  std::string scores_what_;
  sv f_[4];
  std::vector<sv> words_;
  std::string norm_;
  // the run: its source, the line it began on, its entries' bytes one after another
  std::string run_src_, run_bytes_;
  int64_t run_line_ = 0;
  bool in_run_ = false;
};

// ---- the phrase table ---------------------------------------------------------------------------

// The Pruner's file of kept pairs, gzipped at level 1 when named .gz (the Pruner's rule): a large
// model's are 1.9 GB of text, a temporary beside its tables at the disk's peak. Compressed on a
// thread of its own: in line, level 1 added a third to the phrase table's pass on the main thread
// (1.5 to 2.0 s of CPU on 2M lines), and the table's gunzip thread leaves most of a core free.
class KeptWriter {
 public:
  explicit KeptWriter(const std::string& path) : path_(path) {
    errno = 0;
    file_ = gzopen(path.c_str(), gz_name(path) ? "wb1" : "wbT");      // "T": the plain file
    if (!file_) throw TableError{write_error(errno ? std::strerror(errno) : "cannot start zlib"), path_};
    gzbuffer(file_, 1 << 18);      // fewer, larger writes than zlib's 8 KB
    thread_ = std::thread([this] { run(); });
  }
  KeptWriter(const KeptWriter&) = delete;
  KeptWriter& operator=(const KeptWriter&) = delete;
  ~KeptWriter() {              // an error or Ctrl-C elsewhere: what is queued is not written
    stop(true);
    if (file_) gzclose(file_);
  }

  // `block`'s bytes to the file (`block` is left empty, for reuse); an earlier write's error
  void write(std::string& block) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return queue_.size() < kQueued || failed_; });
    if (failed_) throw TableError{write_error(error_), path_};
    queue_.push_back(std::move(block));
    block = std::move(spare_);
    block.clear();
    cv_.notify_all();
  }

  // Everything written and the file closed, or the first error
  void close() {
    stop(false);
    if (failed_) throw TableError{write_error(error_), path_};
    gzFile f = file_;
    file_ = nullptr;
    errno = 0;
    int r = gzclose(f);      // the last compressed bytes are written here: a full disk shows now
    if (r != Z_OK)
      throw TableError{write_error(r == Z_ERRNO && errno ? std::strerror(errno) : "zlib error " + std::to_string(r)),
                       path_};
  }

 private:
  static constexpr size_t kQueued = 2;

  void stop(bool drop) {
    if (!thread_.joinable()) return;
    {
      std::lock_guard<std::mutex> lock(mu_);
      (drop ? dropped_ : closing_) = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  void run() {
    std::string block;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        if (block.capacity() > spare_.capacity()) spare_ = std::move(block);
        cv_.wait(lock, [this] { return !queue_.empty() || closing_ || dropped_; });
        if (dropped_ || queue_.empty()) return;
        block = std::move(queue_.front());
        queue_.pop_front();
      }
      cv_.notify_all();
      std::string err = compress(block);
      if (!err.empty()) {
        std::lock_guard<std::mutex> lock(mu_);
        error_ = err;
        failed_ = true;
        cv_.notify_all();
        return;
      }
    }
  }

  // gzwrite takes an unsigned length: a block longer than that (one run's line) in pieces
  std::string compress(const std::string& block) {
    for (size_t at = 0; at < block.size();) {
      auto n = static_cast<unsigned>(std::min<size_t>(block.size() - at, size_t(1) << 30));
      errno = 0;
      if (gzwrite(file_, block.data() + at, n) != static_cast<int>(n)) {
        int err = Z_OK;
        const char* why = gzerror(file_, &err);
        return err == Z_ERRNO && errno ? std::strerror(errno) : why;
      }
      at += n;
    }
    return "";
  }

  std::string path_;
  gzFile file_ = nullptr;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::string spare_, error_;
  bool closing_ = false, dropped_ = false, failed_ = false;
  std::thread thread_;
};

// binarize_phrase_table, with the Pruner when `prune` > 0
class PhraseTableWriter : LineParser {
 public:
  PhraseTableWriter(const std::string& path, TableFile& file, size_t num_scores, std::string what, int64_t prune,
                    const std::string& kept_path, py::function& rank)
      : LineParser(path, num_scores, std::move(what)), file_(file), prune_(prune), rank_(rank) {
    if (prune_ > 0) kept_ = std::make_unique<KeptWriter>(kept_path);
  }
  PhraseTableWriter(const PhraseTableWriter&) = delete;
  PhraseTableWriter& operator=(const PhraseTableWriter&) = delete;
  int64_t pruned = 0;

  void line(sv line, int64_t lineno) {
    size_t nf = fields(line, lineno);
    sv src = cadtext::strip(f_[0]);
    cadtext::normalize(f_[1], words_, norm_);
    if (src.empty() || norm_.empty()) throw TableError{"empty source or target phrase", path_, lineno};
    scores_.clear();
    scores(scores_, lineno);
    double key = 0;
    if (prune_ > 0) std::memcpy(&key, scores_.data() + 8 * kPruneScore, sizeof key);
    points_.clear();
    if (nf > 3) points(lineno);
    check_target(norm_.size(), lineno);
    if (!in_run_ || src != run_src_) {
      flush();
      run_src_.assign(src);
      run_line_ = lineno;
      in_run_ = true;
      auto words = static_cast<uint32_t>(std::count(src.begin(), src.end(), ' ') + 1);
      file_.longest = std::max(file_.longest, words);
    }
    Entry e;
    e.key = key;
    e.off = run_bytes_.size();
    run_bytes_.append(scores_);
    append_le<uint16_t>(run_bytes_, static_cast<uint16_t>(norm_.size()));
    e.tgt = run_bytes_.size();
    run_bytes_.append(norm_);
    append_le<uint16_t>(run_bytes_, static_cast<uint16_t>(points_.size() / 2));
    for (uint16_t p : points_) append_le<uint16_t>(run_bytes_, p);
    e.len = run_bytes_.size() - e.off;
    e.tgt_len = norm_.size();
    run_.push_back(e);
  }

  void finish() {
    flush();
    if (kept_) {
      if (!kept_line_.empty()) kept_->write(kept_line_);
      kept_->close();
    }
  }

 private:
  struct Entry {
    size_t off, len, tgt, tgt_len;
    double key;
  };

  // binarized.py's _points: "i-j" pairs of ASCII numbers
  void points(int64_t lineno) {
    cadtext::split(f_[3], words_);
    for (sv tok : words_) {
      size_t dash = tok.find('-');
      sv a = dash == sv::npos ? sv() : tok.substr(0, dash), b = dash == sv::npos ? sv() : tok.substr(dash + 1);
      if (dash == sv::npos || !is_uint(a) || !is_uint(b))
        throw TableError{"malformed alignment point " + py_repr(tok), path_, lineno};
      for (sv d : {a, b}) {
        while (d.size() > 1 && d[0] == '0') d.remove_prefix(1);
        unsigned v = 0;
        if (d.size() > 5 || (std::from_chars(d.data(), d.data() + d.size(), v), v > kMaxU16))
          throw TableError{"alignment point " + py_repr(tok) + ": cad's binary tables take word positions up to 65535",
                           path_, lineno};
        points_.push_back(static_cast<uint16_t>(v));
      }
    }
    if (points_.size() / 2 > kMaxU16)
      throw TableError{std::to_string(points_.size() / 2) + " alignment points: more than cad's binary tables take",
                       path_, lineno};
  }

  // Pruner.__call__: the best `prune_` entries by p(e|f), ties to the earlier line, in table order
  void select() {
    keep_.resize(run_.size());
    std::iota(keep_.begin(), keep_.end(), size_t(0));
    if (prune_ <= 0 || run_.size() <= static_cast<size_t>(prune_)) return;
    auto n = static_cast<size_t>(prune_);
    pruned += run_.size() - n;
    bool nan = std::any_of(run_.begin(), run_.end(), [](const Entry& e) { return std::isnan(e.key); });
    if (nan) {
      // Python's sort puts a NaN where its comparisons happen to leave it: Python's own ranking
      py::gil_scoped_acquire gil;
      py::list keys;
      for (const Entry& e : run_) keys.append(e.key);
      keep_.clear();
      for (auto i : rank_(keys, n)) keep_.push_back(i.cast<size_t>());
      return;
    }
    std::partial_sort(keep_.begin(), keep_.begin() + n, keep_.end(), [this](size_t a, size_t b) {
      return run_[a].key != run_[b].key ? run_[a].key > run_[b].key : a < b;
    });
    keep_.resize(n);
    std::sort(keep_.begin(), keep_.end());
  }

  void flush() {
    if (run_.empty()) return;
    select();
    if (kept_) {
      kept_line_ += run_src_;
      kept_line_ += kSep;
      for (size_t k = 0; k < keep_.size(); k++) {
        if (k) kept_line_ += '\t';
        kept_line_.append(run_bytes_, run_[keep_[k]].tgt, run_[keep_[k]].tgt_len);
      }
      kept_line_ += '\n';
      if (kept_line_.size() >= (1 << 20)) kept_->write(kept_line_);
    }
    file_.begin_record(run_src_, run_line_, static_cast<uint32_t>(keep_.size()));
    for (size_t i : keep_) file_.out().put(run_bytes_.data() + run_[i].off, run_[i].len);
    run_.clear();
    run_bytes_.clear();
  }

  TableFile& file_;
  int64_t prune_;
  py::function& rank_;
  std::unique_ptr<KeptWriter> kept_;
  std::string kept_line_, scores_;
  std::vector<Entry> run_;
  std::vector<size_t> keep_;
  std::vector<uint16_t> points_;
};

// ---- the reordering table -----------------------------------------------------------------------

// binarized.py's KeptPairs: the pruned phrase table's pairs (its Pruner's file, one line a source
// phrase: "source ||| target<TAB>target...", gzipped when named .gz), read in step with a
// reordering table sorted as it is
class KeptPairs {
 public:
  KeptPairs(const std::string& path, const std::string& phrase_table, const std::string& text)
      : path_(path), phrase_table_(phrase_table), text_(text) {}
  KeptPairs(const KeptPairs&) = delete;
  KeptPairs& operator=(const KeptPairs&) = delete;

  // The targets kept for `src` (sorted), or null when the phrase table has none
  const std::vector<std::string>* targets(sv src, int64_t lineno) {
    want_.assign(src);
    want_ += kSep;
    if (want_ < last_)
      throw TableError{"the reordering table is not sorted as its lines' bytes (LC_ALL=C sort), so it cannot be "
                       "pruned in step with the phrase table: binarize without --prune", text_, lineno};
    last_ = want_;
    while (!ended_ && key_ < want_) {
      sv line;
      if (!next_line(line)) {
        ended_ = true;
        break;
      }
      size_t sep = line.find(kSep);
      sv key = line.substr(0, sep), tgts = sep == sv::npos ? sv() : line.substr(sep + kSep.size());
      next_key_.assign(key);
      next_key_ += kSep;
      if (next_key_ <= key_)
        throw TableError{phrase_table_ + " is not sorted as its lines' bytes (LC_ALL=C sort), so its reordering "
                                         "table cannot be pruned in step: binarize without --prune",
                         ""};  // no file or line: the phrase table's order is at fault
      key_.swap(next_key_);
      targets_.clear();
      for (size_t p = 0;;) {           // tgts.split("\t")
        size_t q = tgts.find('\t', p);
        targets_.emplace_back(tgts.substr(p, q == sv::npos ? sv::npos : q - p));
        if (q == sv::npos) break;
        p = q + 1;
      }
      std::sort(targets_.begin(), targets_.end());
    }
    return !ended_ && key_ == want_ ? &targets_ : nullptr;
  }

  static bool has(const std::vector<std::string>& targets, sv tgt) {
    auto it = std::lower_bound(targets.begin(), targets.end(), tgt, [](const std::string& a, sv b) { return sv(a) < b; });
    return it != targets.end() && sv(*it) == tgt;
  }

 private:
  // read_lines' next line (our own file, written from UTF-8 already checked: not checked again),
  // a view into the current chunk: valid until the next call. The reader's chunks hold whole
  // lines, however long ("." has tens of thousands of targets in a large model).
  bool next_line(sv& line) {
    if (!reader_) {
      // opened at the first line wanted, as read_lines' generator opens it, with its errors
      struct stat st;
      if (::stat(path_.c_str(), &st) != 0) {
        if (errno == ENOENT) throw TableError{"file not found", path_};
      } else if (S_ISDIR(st.st_mode)) {
        throw TableError{"is a directory, expected a file", path_};
      }
      reader_ = std::make_unique<cadtext::ChunkReader>(path_, gz_name(path_));
    }
    while (at_ >= chunk_.size()) {
      if (!reader_->next(chunk_)) {
        if (!reader_->error().empty()) throw TableError{"cannot read: " + reader_->error(), path_, lines_ + 1};
        return false;
      }
      at_ = 0;
    }
    const char* p = chunk_.data() + at_;
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', chunk_.size() - at_));
    size_t len = nl ? static_cast<size_t>(nl - p) : chunk_.size() - at_;
    at_ += len + 1;
    lines_++;
    line = sv(p, len);
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return true;
  }

  std::string path_, phrase_table_;
  const std::string& text_;
  std::unique_ptr<cadtext::ChunkReader> reader_;
  std::string chunk_;
  size_t at_ = 0;
  int64_t lines_ = 0;
  bool ended_ = false;
  std::string key_, next_key_, want_, last_;
  std::vector<std::string> targets_;
};

// binarize_reordering_table, with the kept pairs of a pruned phrase table when `kept` is given
class ReorderingTableWriter : LineParser {
 public:
  ReorderingTableWriter(const std::string& path, TableFile& file, size_t num_scores, std::string what, KeptPairs* kept)
      : LineParser(path, num_scores, std::move(what)), file_(file), kept_(kept) {}

  void line(sv line, int64_t lineno) {
    fields(line, lineno);
    scores_.clear();
    scores(scores_, lineno);
    sv src = cadtext::strip(f_[0]), tgt = cadtext::strip(f_[1]);
    check_target(tgt.size(), lineno);
    bool wanted = true;
    if (kept_ != nullptr) {
      const auto* targets = kept_->targets(src, lineno);
      if (targets != nullptr) cadtext::normalize(tgt, words_, norm_);
      wanted = targets != nullptr && KeptPairs::has(*targets, norm_);
    }
    if (!in_run_ || src != run_src_) {
      flush();
      run_src_.assign(src);
      run_line_ = lineno;
      in_run_ = true;
    }
    if (!wanted) return;         // the run goes on, without this entry
    wanted_++;
    run_bytes_.append(scores_);
    append_le<uint16_t>(run_bytes_, static_cast<uint16_t>(tgt.size()));
    run_bytes_.append(tgt);
  }

  void finish() { flush(); }

 private:
  void flush() {
    if (wanted_ > 0) {
      file_.begin_record(run_src_, run_line_, wanted_);
      file_.out().put(run_bytes_);
    }
    wanted_ = 0;
    run_bytes_.clear();
  }

  TableFile& file_;
  KeptPairs* kept_;
  std::string scores_;
  uint32_t wanted_ = 0;
};

// ---- Python -------------------------------------------------------------------------------------

PyObject* g_table_error = nullptr;

// `work` without the GIL; a TableError raised as the module's TableError(message, path, line)
template <class F>
void run_released(F&& work) {
  try {
    py::gil_scoped_release nogil;
    work();
  } catch (const TableError& e) {
    py::object path = e.path.empty() ? py::object(py::none()) : py::object(py::str(e.path));
    py::object line = e.line > 0 ? py::object(py::int_(e.line)) : py::object(py::none());
    PyErr_SetObject(g_table_error, py::make_tuple(e.message, path, line).ptr());
    throw py::error_already_set();
  } catch (const Interrupted&) {
    throw py::error_already_set();
  }
}

py::tuple write_phrase_table(const std::string& text, bool gz, int fd, const std::string& out_name, int num_scores,
                             const std::string& what, uint64_t size, uint64_t mtime, int64_t prune,
                             const std::string& kept, py::function rank) {
  int64_t lines = 0, pruned = 0;
  run_released([&] {
    Output out(fd, out_name);
    TableFile file(out, "CADPT001", num_scores, prune > 0 ? prune : 0, text);
    PhraseTableWriter w(text, file, num_scores, what, prune, kept, rank);
    lines = for_each_line(text, gz, [&](sv line, int64_t lineno) { w.line(line, lineno); });
    w.finish();
    file.finish(size, mtime);
    pruned = w.pruned;
  });
  return py::make_tuple(lines, pruned);
}

int64_t write_reordering_table(const std::string& text, bool gz, int fd, const std::string& out_name, int num_scores,
                               const std::string& what, uint64_t size, uint64_t mtime, int64_t prune,
                               const std::string& kept, const std::string& phrase_table) {
  int64_t lines = 0;
  run_released([&] {
    Output out(fd, out_name);
    TableFile file(out, "CADRT001", num_scores, prune, text);
    std::unique_ptr<KeptPairs> pairs;
    if (!kept.empty()) pairs = std::make_unique<KeptPairs>(kept, phrase_table, text);
    ReorderingTableWriter w(text, file, num_scores, what, pairs.get());
    lines = for_each_line(text, gz, [&](sv line, int64_t lineno) { w.line(line, lineno); });
    w.finish();
    file.finish(size, mtime);
  });
  return lines;
}

// cad/moses/check.py's check_phrase_table (the reference: same checks, same messages, same order),
// for `cad moses-ini check` of a large model's text tables: the Python loop took minutes a table
int64_t check_text_table(const std::string& text, bool gz, int num_scores) {
  int64_t entries = 0;
  run_released([&] {
    sv f[4];
    std::vector<sv> words;
    const std::string declares = " scores where the moses.ini declares " + std::to_string(num_scores);
    for_each_line(text, gz, [&](sv line, int64_t lineno) {
      if (split_fields(line, f) < 3)
        throw TableError{"phrase table line needs at least 'source ||| target ||| scores'", text, lineno};
      cadtext::split(f[2], words);
      if (words.size() != static_cast<size_t>(num_scores))
        throw TableError{std::to_string(words.size()) + declares, text, lineno};
      for (sv w : words) {
        double x;
        if (!parse_float(w, x)) throw TableError{"non-numeric score", text, lineno};
      }
      // str.strip() leaves nothing exactly where str.split() finds no word
      cadtext::split(f[0], words);
      bool empty = words.empty();
      if (!empty) {
        cadtext::split(f[1], words);
        empty = words.empty();
      }
      if (empty) throw TableError{"empty source or target phrase", text, lineno};
      entries++;
    });
    if (entries == 0) throw TableError{"phrase table is empty", text, 0};
  });
  return entries;
}

// cad/decoder/tables.py's text loaders (the reference: PhraseTable.load and ReorderingTable.load
// over scored_lines, with the same checks, messages and order): the lines of the `wanted` source
// phrases (None: every one) of a text phrase table (`phrase`) or reordering table, kept as the
// decoder keeps them, one string per source phrase, its entries a line each: `target ||| scores |||
// alignment` (the target's words and the alignment's points one space apart) for a phrase table,
// the target and the scores on a line each for a reordering table. (source -> entries in the order of their first
// lines, the most words a kept source phrase has as PhraseTable counts them.) The Python loop
// took most of a large model's load; this reads as fast as zlib inflates.
py::tuple read_text_entries(const std::string& text, bool gz, int num_scores, const std::string& what,
                            py::object wanted, bool phrase) {
  const bool all = wanted.is_none();
  std::vector<std::string> keys;
  if (!all) {
    for (py::handle w : wanted) keys.push_back(py::cast<std::string>(w));
  }
  std::unordered_set<sv> want(keys.begin(), keys.end());
  std::unordered_map<std::string, size_t> index;
  std::vector<std::pair<std::string, std::string>> groups;
  int64_t longest = 0;
  run_released([&] {
    sv f[4];
    std::vector<sv> words, points;
    const std::string scores_what = " scores, but " + what;
    std::string key;
    for_each_line(text, gz, [&](sv line, int64_t lineno) {
      size_t nf = split_fields(line, f);
      if (nf < 3) throw TableError{"expected 'source ||| target ||| scores'", text, lineno};
      sv src = cadtext::strip(f[0]);
      if (!all && want.find(src) == want.end()) return;
      cadtext::split(f[2], words);
      if (words.size() != static_cast<size_t>(num_scores))
        throw TableError{std::to_string(words.size()) + scores_what, text, lineno};
      for (sv w : words) {
        // only checked here: float() takes every plain decimal (out of range, as infinity)
        double x;
        if (!plain_decimal(w) && !parse_float(w, x))
          throw TableError{"non-numeric score in " + py_repr(f[2]), text, lineno};
      }
      key.assign(src);
      auto [it, fresh] = index.try_emplace(key, groups.size());
      if (fresh) groups.emplace_back(key, std::string());
      std::string& out = groups[it->second].second;
      if (!out.empty()) out += '\n';
      if (!phrase) {
        // `target<TAB>scores` split at its last tab (a line each), as ReorderingTable.load splits it
        out.append(cadtext::strip(f[1]));
        size_t tab = f[2].rfind('\t');
        if (tab != sv::npos) {
          out += '\t';
          out.append(f[2].substr(0, tab));
        }
        out += '\n';
        out.append(tab == sv::npos ? f[2] : f[2].substr(tab + 1));
        return;
      }
      cadtext::split(f[1], words);
      if (src.empty() || words.empty()) throw TableError{"empty source or target phrase", text, lineno};
      points.clear();
      if (nf > 3) cadtext::split(f[3], points);
      for (sv p : points) {
        size_t dash = p.find('-');
        if (dash == sv::npos || !is_uint(p.substr(0, dash)) || !is_uint(p.substr(dash + 1)))
          throw TableError{"malformed alignment point " + py_repr(p), text, lineno};
      }
      for (size_t i = 0; i < words.size(); i++) {
        if (i) out += ' ';
        out.append(words[i]);
      }
      out.append(kSep);
      out.append(f[2]);
      out.append(kSep);
      for (size_t i = 0; i < points.size(); i++) {
        if (i) out += ' ';
        out.append(points[i]);
      }
      longest = std::max<int64_t>(longest, std::count(src.begin(), src.end(), ' ') + 1);
    });
  });
  // each source's string handed to Python and let go: the entries are in memory about once
  index.clear();
  py::dict out;
  for (auto& [src, entries] : groups) {
    out[py::str(src)] = py::str(entries);
    std::string().swap(entries);
  }
  return py::make_tuple(out, longest);
}

// The scores of `targets` among a reordering table's kept entries of one source phrase (the
// target and the scores on a line each, as read_text_entries keeps them): for each target, the
// scores of its last entry, as a dict of the lines would give them, or None. One pass over the
// text, no object made for the entries not asked for: a common phrase has tens of thousands.
// (`text` is a view of the str's UTF-8 form: no copy per call)
py::list pick_pairs(std::string_view text, const std::vector<std::string>& targets) {
  std::unordered_map<sv, size_t> want;       // a target asked for twice has one slot
  std::vector<size_t> slot(targets.size());
  for (size_t i = 0; i < targets.size(); i++) slot[i] = want.emplace(targets[i], want.size()).first->second;
  std::vector<sv> found(want.size());
  std::vector<char> seen(want.size(), 0);
  const sv all = text;
  const size_t* hit = nullptr;
  for (size_t pos = 0, k = 0;; k++) {
    const size_t nl = all.find('\n', pos);
    const sv line = all.substr(pos, nl == sv::npos ? sv::npos : nl - pos);
    if (k % 2 == 0) {
      auto it = want.find(line);
      hit = it == want.end() ? nullptr : &it->second;
    } else if (hit != nullptr) {
      found[*hit] = line;
      seen[*hit] = 1;
    }
    if (nl == sv::npos) break;
    pos = nl + 1;
  }
  py::list out;
  for (size_t i = 0; i < targets.size(); i++)
    out.append(seen[slot[i]] ? py::object(py::str(found[slot[i]].data(), found[slot[i]].size()))
                             : py::object(py::none()));
  return out;
}

}  // namespace

PYBIND11_MODULE(_binarize, m) {
  m.doc() = "cad binarize's writer of binary phrase and reordering tables (cad.moses.binarize_native)";
  g_table_error = PyErr_NewException("cad.moses._binarize.TableError", PyExc_Exception, nullptr);
  m.attr("TableError") = py::handle(g_table_error);
  m.def("write_phrase_table", &write_phrase_table, py::arg("text"), py::arg("gz"), py::arg("fd"),
        py::arg("out_name"), py::arg("num_scores"), py::arg("what"), py::arg("size"), py::arg("mtime"),
        py::arg("prune"), py::arg("kept"), py::arg("rank"),
        "Write the text phrase table `text` as a binary one to descriptor `fd`; (lines, entries pruned). "
        "`prune` > 0: the best entries of each source phrase, their targets written to the file `kept`; "
        "`rank(scores, n)` ranks a run Python's way when a score is NaN");
  m.def("write_reordering_table", &write_reordering_table, py::arg("text"), py::arg("gz"), py::arg("fd"),
        py::arg("out_name"), py::arg("num_scores"), py::arg("what"), py::arg("size"), py::arg("mtime"),
        py::arg("prune"), py::arg("kept"), py::arg("phrase_table"),
        "Write the text reordering table `text` as a binary one to descriptor `fd`; the lines read. "
        "`kept` (not empty): only the pairs in this file of a pruned phrase table's kept targets");
  m.def("check_text_table", &check_text_table, py::arg("text"), py::arg("gz"), py::arg("num_scores"),
        "cad.moses.check.check_phrase_table of a text phrase or reordering table: its entries, or TableError");
  m.def("read_text_entries", &read_text_entries, py::arg("text"), py::arg("gz"), py::arg("num_scores"),
        py::arg("what"), py::arg("wanted"), py::arg("phrase"),
        "The entries of the wanted source phrases of a text phrase or reordering table as cad's decoder keeps "
        "them (cad/decoder/tables.py): (source -> entries, the longest kept source in words), or TableError");
  m.def("pick_pairs", &pick_pairs, py::arg("text"), py::arg("targets"),
        "The scores of `targets` among one source phrase's reordering entries as read_text_entries keeps them "
        "(the last entry of each), or None");
}
