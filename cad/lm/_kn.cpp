// Interpolated modified Kneser-Ney in C++ (cad/lm/kneser_ney.py is the reference): `cad lm` spent
// its time in Python dictionaries of string tuples. Every probability is the same double as the
// Python estimate computes (same operations in the same order, no fused multiply-add), and the ARPA
// text is byte-identical to write_arpa's (tests/test_lm.py compares them). The discounts come from
// Python (compute_discounts), so that their maths and their error stay in one place.
//
// Memory stays within a budget whatever the corpus size, as KenLM's lmplz does it: every set of
// n-grams is a Buffer of fixed-size records (word ids, then a count or doubles) that lives in
// memory while the budget allows and otherwise spills sorted runs to a temporary directory, read
// back by a k-way merge. Only the vocabulary and per-word arrays stay in memory regardless. The
// passes, each streaming one order's records in the order it needs:
//   1. counting: the highest-order n-grams (raw counts) and, below it, the n-grams that begin at
//      <s> (which keep raw counts), aggregated in hash tables, spilled in suffix order (last word
//      first);
//   2. adjusting (one pass over the merged highest order, in suffix order): the n-grams sharing a
//      suffix are adjacent, so each lower order's continuation counts come out of a running group,
//      already in suffix order, merged with that order's <s> n-grams and passed further down; every
//      order's adjusted counts go to a buffer in context order, and their counts of counts to Python;
//   3. per order, in context order: each context's denominator, N1/N2/N3+ and so its γ (the back-off
//      of the context), and each n-gram's discounted term. When the lower order's probabilities fit
//      in memory, each n-gram's is computed there, p(w|c') found by hashing the suffix, and comes
//      out in word order, which is the ARPA order; otherwise the terms are re-sorted by suffix
//      (words 2..n, then 1) so that a merge with the lower order's probabilities, in word order,
//      finds p(w|c'), and the result is sorted back into word order. The lower order is written
//      while the next one is computed against it.
// Word ids become ranks (the words' UTF-8 byte order, Python's str order) once the vocabulary is
// complete, so that "word order" is a plain comparison of ids from pass 2 on. Runs spilled during
// counting are sorted by the ranks of the vocabulary so far: adding words never changes the
// relative order of the words already seen, so those runs are also sorted by the final ranks.
//
// With two threads (the default), the n-grams are counted on a thread of their own while the next
// chunk's words are found, large sorts are shared, and two threads format the ARPA text; every
// sort is by a strict total order and every output comes out in the order it was queued, so the
// bytes are the same with one thread or two.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <numeric>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace py = pybind11;

namespace {

constexpr uint32_t kBos = 0, kEos = 1, kUnk = 2;

// a failure of the temporary files (disk full, directory gone, ...): Python turns it into a CadError
class TempFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string& what, const std::string& path) {
  throw TempFileError(what + " " + path + ": " + std::strerror(errno));
}

// payloads are stored in uint32 words; memcpy keeps the doubles bit-exact and the access legal
uint64_t get_u64(const uint32_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void set_u64(uint32_t* p, uint64_t v) { std::memcpy(p, &v, sizeof v); }
double get_f64(const uint32_t* p) {
  double v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void set_f64(uint32_t* p, double v) { std::memcpy(p, &v, sizeof v); }

// (std::equal and std::copy call memcmp and memmove, slow for a few words)
inline void copy_words(uint32_t* dst, const uint32_t* src, int n) {
  for (int i = 0; i < n; ++i) dst[i] = src[i];
}
inline bool same_words(const uint32_t* a, const uint32_t* b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// the record format of a buffer and the order its runs are sorted in
struct Layout {
  int key = 0;                               // words of the n-gram
  int words = 0;                             // key + payload, in uint32 words
  std::vector<int> perm;                     // key positions in order of significance
  const std::vector<uint32_t>* rank = nullptr;  // compare rank[id] (counting, before ids are ranks)
  bool combine = false;                      // equal keys merge by summing the count after the key
  uint64_t bound = 0;                        // every word (rank) is below it; 0: not known

  size_t bytes() const { return static_cast<size_t>(words) * 4; }
  int cmp(const uint32_t* a, const uint32_t* b) const {
    for (int p : perm) {
      uint32_t x = a[p], y = b[p];
      if (rank) x = (*rank)[x], y = (*rank)[y];
      if (x != y) return x < y ? -1 : 1;
    }
    return 0;
  }
  bool same_key(const uint32_t* a, const uint32_t* b) const { return same_words(a, b, key); }
};

// w1..wn: the ARPA order and the context order (a context's n-grams are adjacent)
Layout word_order(int key, int payload) {
  Layout l{key, key + payload, {}};
  for (int i = 0; i < key; ++i) l.perm.push_back(i);
  return l;
}
// wn..w1: the n-grams that share a suffix are adjacent, and the suffixes come in their own suffix order
Layout suffix_order(int key, int payload) {
  Layout l{key, key + payload, {}};
  for (int i = key - 1; i >= 0; --i) l.perm.push_back(i);
  return l;
}
// w2..wn then w1: the suffixes come in word order, to merge with the lower order's probabilities
Layout suffix_word_order(int key, int payload) {
  Layout l{key, key + payload, {}};
  for (int i = 1; i < key; ++i) l.perm.push_back(i);
  l.perm.push_back(0);
  return l;
}

int word_cmp(const uint32_t* a, const uint32_t* b, int n) {
  for (int i = 0; i < n; ++i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}
int suffix_cmp(const uint32_t* a, const uint32_t* b, int n) {
  for (int i = n - 1; i >= 0; --i)
    if (a[i] != b[i]) return a[i] < b[i] ? -1 : 1;
  return 0;
}

// Large arrays live in huge pages (2 MB, transparent huge pages on request where the kernel allows
// them), which are kept once given back and lent again: the hash tables, the sort indexes and the
// records are read all over hundreds of megabytes (a TLB miss per 4 KB page took a third of the
// estimator's time in a virtual machine), and a fresh page costs a fault and its zeroing (there,
// more than the sorts). A run of pages is made contiguous by moving them (mremap moves page
// tables, not bytes). The pages go back to the system once no counter is left.
constexpr size_t kHugePage = size_t{2} << 20;

class PagePool {
 public:
  static PagePool& get() {
    static PagePool* pool = new PagePool;  // never destroyed: no order of destruction to mind at exit
    return *pool;
  }

  // `pages` contiguous pages, aligned on a huge page
  char* take(size_t pages) {
    const size_t bytes = pages * kHugePage;
    // an aligned place: one page more than needed, the ends given back
    void* r = ::mmap(nullptr, bytes + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t start = reinterpret_cast<uintptr_t>(r);
    const uintptr_t base = (start + kHugePage - 1) & ~(kHugePage - 1);
    if (base > start) ::munmap(r, base - start);
    if (start + kHugePage > base) ::munmap(reinterpret_cast<void*>(base + bytes), start + kHugePage - base);
    char* at = reinterpret_cast<char*>(base);
    size_t moved = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (; moved < pages && !free_.empty(); ++moved) {
        void* to = at + moved * kHugePage;
        if (::mremap(free_.back(), kHugePage, kHugePage, MREMAP_MAYMOVE | MREMAP_FIXED, to) != to) break;
        free_.pop_back();
      }
    }
    if (moved < pages) {
      void* rest = at + moved * kHugePage;
      if (::mmap(rest, bytes - moved * kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
                 0) != rest) {
        ::munmap(at, bytes);
        throw std::bad_alloc();
      }
      ::madvise(rest, bytes - moved * kHugePage, MADV_HUGEPAGE);  // refused: small pages, no harm
    }
    return at;
  }

  void give(char* p, size_t pages) {
    std::lock_guard<std::mutex> lock(mu_);
    for (size_t i = 0; i < pages; ++i) free_.push_back(p + i * kHugePage);
  }

  // a counter starts (its pages are kept) or ends (the last one's are given back to the system)
  void enter() {
    std::lock_guard<std::mutex> lock(mu_);
    ++users_;
  }
  void leave() {
    std::lock_guard<std::mutex> lock(mu_);
    if (--users_ > 0) return;
    for (char* p : free_) ::munmap(p, kHugePage);
    free_.clear();
  }

 private:
  std::mutex mu_;
  std::vector<char*> free_;
  int users_ = 0;
};

size_t huge_pages(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage; }

// std::vector's allocator for the large arrays: pages of the pool from kHugePage up, the heap
// below; elements are default-initialized (an index is written whole after its allocation)
template <class T>
struct HugeAllocator {
  using value_type = T;
  HugeAllocator() = default;
  template <class U>
  HugeAllocator(const HugeAllocator<U>&) {}
  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    return reinterpret_cast<T*>(PagePool::get().take(huge_pages(bytes)));
  }
  void deallocate(T* p, size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      ::operator delete(p);
    } else {
      PagePool::get().give(reinterpret_cast<char*>(p), huge_pages(bytes));
    }
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (sizeof...(Args) == 0) {
      ::new (static_cast<void*>(p)) U;
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
  }
  template <class U>
  bool operator==(const HugeAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const HugeAllocator<U>&) const { return false; }
};

// f(0) on a thread of its own and f(1) on this one when `two`, else both here, one after the other
template <class F>
void run_two(bool two, F&& f) {
  if (!two) {
    f(0);
    f(1);
    return;
  }
  std::exception_ptr err;
  std::thread t([&] {
    try {
      f(0);
    } catch (...) {
      err = std::current_exception();
    }
  });
  try {
    f(1);
  } catch (...) {
    t.join();
    throw;
  }
  t.join();
  if (err) std::rethrow_exception(err);
}

class TempDir {
 public:
  explicit TempDir(std::string parent) : parent_(std::move(parent)) {}
  ~TempDir() { remove(); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // created on the first spill: a corpus that fits the budget touches no disk
  std::string new_file() {
    if (path_.empty()) {
      std::string templ = parent_ + "/cad-lm-XXXXXX";
      std::vector<char> b(templ.begin(), templ.end());
      b.push_back('\0');
      if (!::mkdtemp(b.data())) fail("cannot create a temporary directory in", parent_);
      path_ = b.data();
    }
    ++files_;
    return path_ + "/run-" + std::to_string(files_) + ".bin";
  }
  uint64_t files() const { return files_; }
  void remove() noexcept {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    path_.clear();
  }

 private:
  std::string parent_, path_;
  uint64_t files_ = 0;
};

class FileWriter {
 public:
  FileWriter(std::string path, bool append, size_t buf_bytes) : path_(std::move(path)), buf_(buf_bytes / 4) {
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0600);
    if (fd_ < 0) fail("cannot create the temporary file", path_);
  }
  ~FileWriter() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;

  void put(const uint32_t* rec, int words) {
    if (used_ + words > buf_.size()) flush();
    if (static_cast<size_t>(words) > buf_.size()) buf_.resize(words);
    copy_words(&buf_[used_], rec, words);
    used_ += words;
  }
  // close() reports the errors that a full disk may only give then
  void finish() {
    flush();
    int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail("cannot write the temporary file", path_);
  }

 private:
  void flush() {
    const char* p = reinterpret_cast<const char*>(buf_.data());
    size_t off = 0, size = used_ * 4;
    while (off < size) {
      ssize_t w = ::write(fd_, p + off, size - off);
      if (w < 0) {
        if (errno == EINTR) continue;
        fail("cannot write the temporary file", path_);
      }
      off += static_cast<size_t>(w);
    }
    used_ = 0;
  }

  std::string path_;
  std::vector<uint32_t> buf_;
  size_t used_ = 0;
  int fd_ = -1;
};

// records one at a time; a pointer stays valid until the next call
class Stream {
 public:
  virtual ~Stream() = default;
  virtual const uint32_t* next() = 0;
};

class FileStream : public Stream {
 public:
  FileStream(std::string path, int words, size_t buf_bytes) : path_(std::move(path)), words_(words) {
    fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) fail("cannot open the temporary file", path_);
    buf_.resize(std::max<size_t>(1, buf_bytes / (4 * words_)) * words_);
  }
  ~FileStream() override {
    if (fd_ >= 0) ::close(fd_);
  }
  const uint32_t* next() override {
    if (pos_ == end_) {
      refill();
      if (pos_ == end_) return nullptr;
    }
    const uint32_t* r = buf_.data() + pos_;
    pos_ += words_;
    return r;
  }

 private:
  void refill() {
    char* p = reinterpret_cast<char*>(buf_.data());
    size_t want = buf_.size() * 4, got = 0;
    while (got < want) {
      ssize_t r = ::read(fd_, p + got, want - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        fail("cannot read the temporary file", path_);
      }
      if (r == 0) break;
      got += static_cast<size_t>(r);
    }
    if (got % (4 * static_cast<size_t>(words_))) throw TempFileError("the temporary file " + path_ + " is truncated");
    pos_ = 0;
    end_ = got / 4;
  }

  std::string path_;
  size_t words_;
  int fd_ = -1;
  std::vector<uint32_t> buf_;
  size_t pos_ = 0, end_ = 0;
};

// k-way merge of sorted streams (a binary heap of their heads)
class MergeStream : public Stream {
 public:
  MergeStream(std::vector<std::unique_ptr<Stream>> in, const Layout& lay)
      : in_(std::move(in)), lay_(lay), head_(in_.size()), cur_(lay.words) {
    for (size_t i = 0; i < in_.size(); ++i)
      if ((head_[i] = in_[i]->next())) heap_.push_back(i);
    std::make_heap(heap_.begin(), heap_.end(), greater());
  }
  const uint32_t* next() override {
    if (heap_.empty()) return nullptr;
    size_t i = pop();
    copy_words(cur_.data(), head_[i], lay_.words);
    advance(i);
    if (lay_.combine) {
      while (!heap_.empty() && lay_.same_key(head_[heap_.front()], cur_.data())) {
        size_t j = pop();
        set_u64(&cur_[lay_.key], get_u64(&cur_[lay_.key]) + get_u64(head_[j] + lay_.key));
        advance(j);
      }
    }
    return cur_.data();
  }

 private:
  struct Greater {
    const MergeStream* m;
    bool operator()(size_t a, size_t b) const { return m->lay_.cmp(m->head_[a], m->head_[b]) > 0; }
  };
  Greater greater() const { return Greater{this}; }
  size_t pop() {
    std::pop_heap(heap_.begin(), heap_.end(), greater());
    size_t i = heap_.back();
    heap_.pop_back();
    return i;
  }
  void advance(size_t i) {
    if ((head_[i] = in_[i]->next())) {
      heap_.push_back(i);
      std::push_heap(heap_.begin(), heap_.end(), greater());
    }
  }

  std::vector<std::unique_ptr<Stream>> in_;
  const Layout& lay_;
  std::vector<const uint32_t*> head_;
  std::vector<size_t> heap_;
  std::vector<uint32_t> cur_;
};

class Buffer;

// The budget shared by every buffer: when a buffer needs room, the largest buffer that is not
// being read spills to disk (the one asking included), which gives long runs and few of them.
class Memory {
 public:
  // (more than two threads would not be used: two share the sorts, one counts while one reads)
  Memory(uint64_t budget, int threads) : budget_(budget), threads_(std::min(threads, 2)) { PagePool::get().enter(); }
  int threads() const { return threads_; }
  // read and write buffers of the temporary files: small next to the budget, even at the fan-in
  size_t io_bytes() const { return std::clamp<uint64_t>(budget_ / 4096, 16u << 10, 1u << 20); }
  uint64_t budget() const { return budget_; }
  bool fits(size_t bytes) const { return used_ + bytes <= budget_; }
  void make_room(size_t bytes);
  void charge(size_t bytes) { used_ += bytes; }
  void release(size_t bytes) { used_ -= bytes; }
  void enroll(Buffer* b) { buffers_.push_back(b); }
  void leave(Buffer* b) { buffers_.erase(std::remove(buffers_.begin(), buffers_.end(), b), buffers_.end()); }

  // Huge pages for the records' blocks (a large budget's blocks): the pool keeps them
  bool paged() const { return budget_ >= 32 * kHugePage; }
  char* take_page() { return PagePool::get().take(1); }
  void give_page(char* p) { PagePool::get().give(p, 1); }
  ~Memory() { PagePool::get().leave(); }
  Memory(const Memory&) = delete;
  Memory& operator=(const Memory&) = delete;

 private:
  uint64_t budget_, used_ = 0;
  int threads_;
  std::vector<Buffer*> buffers_;
};

// A set of records: in memory (blocks of a fixed size, so that growth never copies) and, once it
// had to spill, in runs on disk. kSorted buffers are read in their layout's order (sorted runs,
// merged); kSequential ones are appended in the order they are read in (one file, appended to).
// An aggregating buffer finds records by key (a hash table) to count them.
class Buffer {
 public:
  enum Kind { kSorted, kSequential };
  static constexpr size_t kFanIn = 64;

  Buffer(Memory& mem, TempDir& tmp, Layout lay, Kind kind, bool aggregate = false)
      : mem_(mem), tmp_(tmp), lay_(std::move(lay)), kind_(kind), aggregate_(aggregate) {
    // a dozen buffers may each hold a part-filled block, charged whole: small blocks leave the
    // budget to records, and a tiny budget (the tests') gives runs of single records. A large
    // budget's blocks are cut out of huge pages, several to a page (little of it left unused).
    paged_ = mem.paged() && lay_.bytes() <= kHugePage / 8;
    const uint64_t block = paged_ ? kHugePage / 8 : std::min<uint64_t>(1u << 20, mem.budget() / 32);
    size_t target = std::max<uint64_t>(lay_.bytes(), block);
    per_block_ = 1;
    shift_ = 0;
    while (per_block_ * 2 * lay_.bytes() <= target) per_block_ *= 2, ++shift_;
    // the sort index is allocated when sorting, but counted from the start
    const size_t index_bytes = kind_ == kSorted ? sizeof(SortEntry) : 0;
    block_charge_ = per_block_ * (lay_.bytes() + index_bytes);
    if (paged_) {
      blocks_per_page_ = kHugePage / (per_block_ * lay_.bytes());
      block_charge_ = kHugePage + blocks_per_page_ * per_block_ * index_bytes;  // by the page
    }
    if (aggregate_) slots_.assign(kInitialSlots, kEmpty);
    mem_.enroll(this);
  }
  ~Buffer() {
    drop();
    mem_.leave(this);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  size_t held() const { return held_; }
  bool evictable() const { return !reading_ && n_ > 0; }
  const uint32_t* at(size_t i) const { return blocks_[i >> shift_] + (i & (per_block_ - 1)) * lay_.words; }

  void append(const uint32_t* rec) { copy_words(push(), rec, lay_.words); }

  bool in_memory() const { return runs_.empty(); }

  // Record numbers by key, for lookups while the buffer is read (all of it in memory, pinned there
  // from now on): false, and nothing changed, when the slots do not fit in the budget
  bool build_index() {
    size_t size = kInitialSlots;
    while ((n_ + 1) * kLoadDen > size * kLoadNum) size *= 2;
    const size_t bytes = size * sizeof(uint64_t);
    const bool was_reading = reading_;
    reading_ = true;  // not spilled to make room for its own index
    mem_.make_room(bytes);
    if (!mem_.fits(bytes)) {
      reading_ = was_reading;
      return false;
    }
    slots_.assign(size, kEmpty);
    for (size_t i = 0; i < n_; ++i) place(hash(at(i)), static_cast<uint32_t>(i));
    slot_charge_ += bytes;
    held_ += bytes;
    mem_.charge(bytes);
    return true;
  }

  // the record of `key` (build_index), or nullptr; `h` is hash(key)
  const uint32_t* find(const uint32_t* key, uint64_t h) const {
    const uint64_t tag = h & kTagMask;
    for (size_t mask = slots_.size() - 1, s = h & mask;; s = (s + 1) & mask) {
      uint64_t e = slots_[s];
      if (e == kEmpty) return nullptr;
      if ((e & kTagMask) != tag) continue;
      const uint32_t* r = at(static_cast<uint32_t>(e));
      if (lay_.same_key(key, r)) return r;
    }
  }

  // the record of `key`, added with count 0 if absent; `h` is hash(key)
  uint32_t* find_or_add(const uint32_t* key, uint64_t h) {
    const uint64_t tag = h & kTagMask;
    for (size_t mask = slots_.size() - 1, s = h & mask;; s = (s + 1) & mask) {
      uint64_t e = slots_[s];
      if (e == kEmpty) break;
      if ((e & kTagMask) != tag) continue;
      uint32_t* r = rec(static_cast<uint32_t>(e));
      if (lay_.same_key(key, r)) return r;
    }
    if ((n_ + 1) * kLoadDen > slots_.size() * kLoadNum) {
      size_t extra = slots_.size() * sizeof(uint64_t);
      mem_.make_room(extra);  // may spill this table, which then needs no bigger one
      if ((n_ + 1) * kLoadDen > slots_.size() * kLoadNum) {
        rehash(slots_.size() * 2);
        slot_charge_ += extra;
        held_ += extra;
        mem_.charge(extra);
      }
    }
    uint32_t* r = push();  // after a spill the key is absent from the emptied table too
    copy_words(r, key, lay_.key);
    set_u64(r + lay_.key, 0);
    place(h, static_cast<uint32_t>(n_ - 1));
    return r;
  }

  // The table is larger than the caches: the slot of an n-gram about to be counted is fetched
  // while the ones before it are counted (first its slot, then the record its tag points at)
  void prefetch_slot(uint64_t h) const { __builtin_prefetch(&slots_[h & (slots_.size() - 1)]); }
  void prefetch_record(uint64_t h) const {
    const uint64_t tag = h & kTagMask;
    for (size_t mask = slots_.size() - 1, s = h & mask;; s = (s + 1) & mask) {
      uint64_t e = slots_[s];
      if (e == kEmpty) return;
      if ((e & kTagMask) == tag) {
        __builtin_prefetch(at(static_cast<uint32_t>(e)));
        return;
      }
    }
  }

  uint64_t hash(const uint32_t* k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < lay_.key; ++i) {
      h ^= k[i] + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h *= 0xff51afd7ed558ccdull;
    }
    return h ^ (h >> 29);
  }

  // Called from Memory: the records in memory go to disk
  void spill() {
    if (n_ == 0) return;
    if (kind_ == kSequential) {
      if (runs_.empty()) runs_.push_back(tmp_.new_file());
      FileWriter w(runs_[0], true, mem_.io_bytes());
      for (size_t i = 0; i < n_; ++i) w.put(at(i), lay_.words);
      w.finish();
    } else {
      SortIndex idx = sorted_index();
      runs_.push_back(tmp_.new_file());
      FileWriter w(runs_.back(), false, mem_.io_bytes());
      // the records are visited in sorted order, all over memory: fetched a few ahead
      for (size_t i = 0; i < idx.size(); ++i) {
        if (i + kAhead < idx.size()) __builtin_prefetch(at(idx[i + kAhead].idx));
        w.put(at(idx[i].idx), lay_.words);
      }
      w.finish();
    }
    clear_memory();
  }

  // Every record in order; the buffer stays in memory or on disk, unspillable, until drop()
  std::unique_ptr<Stream> open() {
    reading_ = true;
    if (aggregate_) {
      decltype(slots_)().swap(slots_);
      mem_.release(slot_charge_);
      held_ -= slot_charge_;
      slot_charge_ = 0;
    }
    if (runs_.empty()) {
      if (kind_ == kSorted) index_ = sorted_index();
      return std::make_unique<MemoryStream>(*this);
    }
    // a buffer that spilled once spills its tail as well: only the read buffers stay in memory
    spill();
    if (kind_ == kSequential) return std::make_unique<FileStream>(runs_[0], lay_.words, mem_.io_bytes());
    while (runs_.size() > kFanIn) merge_runs();
    if (runs_.size() == 1) return std::make_unique<FileStream>(runs_[0], lay_.words, mem_.io_bytes());
    return std::make_unique<MergeStream>(open_runs(runs_), lay_);
  }

  void drop() noexcept {
    clear_memory();
    SortIndex().swap(index_);
    for (const std::string& p : runs_) ::unlink(p.c_str());
    runs_.clear();
    reading_ = false;
  }

  std::function<void()> before_sort;  // counting: refresh the ranks of the growing vocabulary

 private:
  // a record's number and its key's first 96 bits (hi: the top 64)
  struct SortEntry {
    uint64_t hi;
    uint32_t lo, idx;
  };
  using SortIndex = std::vector<SortEntry, HugeAllocator<SortEntry>>;
  // a record number is below 2^31, so no slot in use is kEmpty
  static constexpr uint64_t kEmpty = ~uint64_t{0}, kTagMask = ~uint64_t{0} << 32;
  // a slot's tag spares a visit to the records of the other keys on its way: the table fills up to
  // 70% (a new key looks at a few slots, mostly in one cache line)
  static constexpr size_t kLoadNum = 7, kLoadDen = 10;
  static constexpr size_t kInitialSlots = 16;
  static constexpr size_t kMaxRecords = size_t{1} << 31;  // record numbers are uint32
  static constexpr size_t kAhead = 8;  // records fetched ahead of a walk in sorted order
  static constexpr size_t kParallelSort = size_t{1} << 14;  // fewer entries: not worth a thread

  class MemoryStream : public Stream {
   public:
    explicit MemoryStream(const Buffer& b) : b_(b) {}
    const uint32_t* next() override {
      if (i_ == b_.n_) return nullptr;
      size_t k = i_;
      if (!b_.index_.empty()) {
        if (i_ + kAhead < b_.n_) __builtin_prefetch(b_.at(b_.index_[i_ + kAhead].idx));
        k = b_.index_[i_].idx;
      }
      ++i_;
      return b_.at(k);
    }

   private:
    const Buffer& b_;
    size_t i_ = 0;
  };

  uint32_t* rec(size_t i) { return blocks_[i >> shift_] + (i & (per_block_ - 1)) * lay_.words; }

  // room for one more record; asking for it may spill this very buffer
  uint32_t* push() {
    if (n_ >= kMaxRecords) spill();
    if (n_ == blocks_.size() * per_block_) {
      if (!paged_ || blocks_.size() % blocks_per_page_ == 0) {
        mem_.make_room(block_charge_);  // may spill this buffer: then its first block is wanted
        if (paged_) {
          pages_.push_back(mem_.take_page());
        } else {
          owned_.emplace_back(new uint32_t[per_block_ * lay_.words]);
        }
        held_ += block_charge_;
        mem_.charge(block_charge_);
      }
      if (paged_) {
        const size_t in_page = blocks_.size() % blocks_per_page_;
        blocks_.push_back(reinterpret_cast<uint32_t*>(pages_.back()) + in_page * per_block_ * lay_.words);
      } else {
        blocks_.push_back(owned_.back().get());
      }
    }
    return rec(n_++);
  }

  // The key of a record is a bit string, its words (ranks) in the layout's order of significance at
  // the width of the largest: as many words as fit in 96 bits ride along with the record number
  // (in the 16 bytes an entry takes anyway) and decide every comparison unless the vocabulary is
  // too large for the whole n-gram to fit; equal ones go on to the records, then to the record
  // numbers. That is a strict total order, so the result is the one sorted permutation whatever the
  // algorithm and however many threads share it.
  SortIndex sorted_index() {
    if (before_sort) before_sort();
    const std::vector<uint32_t>* rank = lay_.rank;
    // the widest word: from what the layout knows (a pass over every record costs as much as the
    // radix passes), else read
    uint64_t top = 1;
    if (rank != nullptr) {
      if (!rank->empty()) top = std::max<uint64_t>(top, rank->size() - 1);
    } else if (lay_.bound > 0) {
      top = std::max<uint64_t>(top, lay_.bound - 1);
    } else {
      for (size_t i = 0; i < n_; ++i)
        for (int p : lay_.perm) top = std::max<uint64_t>(top, at(i)[p]);
    }
    Key key;
    while (top >> key.bits) ++key.bits;
    key.words = std::min<int>(static_cast<int>(lay_.perm.size()), 96 / key.bits);
    key.exact = key.words == static_cast<int>(lay_.perm.size());
    key.total = key.words * key.bits;
    key.perm = lay_.perm.data();
    key.rank = rank ? rank->data() : nullptr;
    SortIndex idx(n_);
    const bool two = mem_.threads() > 1 && n_ >= kParallelSort;
    run_two(two, [&](int part) {
      const size_t from = two ? n_ / 2 * part : (part ? n_ : 0), to = two && !part ? n_ / 2 : n_;
      for (size_t i = from; i < to; ++i) {
        const unsigned __int128 v = key.value(at(i));
        idx[i] = {static_cast<uint64_t>(v >> 32), static_cast<uint32_t>(v), static_cast<uint32_t>(i)};
      }
    });
    sort_entries(idx.data(), idx.size(), key, mem_.threads());
    return idx;
  }

  struct Key {
    int bits = 0, words = 0, total = 0;  // total: the bits of the entries' keys, at most 96
    bool exact = true;                   // the entries hold every word of the key
    const int* perm = nullptr;
    const uint32_t* rank = nullptr;  // counting: ids become ranks

    unsigned __int128 value(const uint32_t* r) const {
      unsigned __int128 v = 0;
      if (rank) {
        for (int j = 0; j < words; ++j) v = v << bits | rank[r[perm[j]]];
      } else {
        for (int j = 0; j < words; ++j) v = v << bits | r[perm[j]];
      }
      return v;
    }
  };

  static bool key_less(const SortEntry& a, const SortEntry& b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }
  static bool key_equal(const SortEntry& a, const SortEntry& b) { return a.hi == b.hi && a.lo == b.lo; }
  // the bits of an entry's key from `shift` up, under `mask`
  static size_t digit(const SortEntry& e, int shift, size_t mask) {
    const uint64_t v = shift >= 32 ? e.hi >> (shift - 32) : (e.hi << (32 - shift)) | (e.lo >> shift);
    return static_cast<size_t>(v & mask);
  }

  // Radix sort, most significant digit first, in place (American flag sort): the entries agree on
  // every bit of their keys from `below` up. Small ranges are sorted by insertion.
  static void sort_keys(SortEntry* a, size_t n, int below) {
    size_t count[size_t{1} << 11];
    for (;;) {
      if (n <= 32) {
        for (size_t i = 1; i < n; ++i) {
          SortEntry e = a[i];
          size_t j = i;
          for (; j > 0 && key_less(e, a[j - 1]); --j) a[j] = a[j - 1];
          a[j] = e;
        }
        return;
      }
      if (below == 0) return;
      const int width = std::min(below, n >= 4096 ? 11 : 8), shift = below - width;
      const size_t buckets = size_t{1} << width;
      std::fill(count, count + buckets, 0);
      for (size_t i = 0; i < n; ++i) ++count[digit(a[i], shift, buckets - 1)];
      if (count[digit(a[0], shift, buckets - 1)] == n) {
        below = shift;
        continue;
      }
      permute(a, count, buckets, shift);
      for (size_t b = 0, at = 0; b < buckets; at += count[b++])
        if (count[b] > 1) sort_keys(a + at, count[b], shift);
      return;
    }
  }

  // moves every entry to its bucket of the digit at `shift` (count: the size of each bucket)
  static void permute(SortEntry* a, const size_t* count, size_t buckets, int shift) {
    size_t next[size_t{1} << 11], end[size_t{1} << 11];
    for (size_t b = 0, at = 0; b < buckets; at += count[b++]) next[b] = at, end[b] = at + count[b];
    for (size_t b = 0; b < buckets; ++b) {
      while (next[b] < end[b]) {
        SortEntry e = a[next[b]];
        for (size_t d = digit(e, shift, buckets - 1); d != b; d = digit(e, shift, buckets - 1))
          std::swap(e, a[next[d]++]);
        a[next[b]++] = e;
      }
    }
  }

  // the runs of equal keys in the total order: by the records (when the keys hold only some of
  // their words), then by record number
  void sort_ties(SortEntry* a, size_t n, const Key& key) const {
    for (size_t i = 0; i < n;) {
      size_t j = i + 1;
      while (j < n && key_equal(a[j], a[i])) ++j;
      if (j - i > 1)
        std::sort(a + i, a + j, [&](const SortEntry& x, const SortEntry& y) {
          if (!key.exact) {
            int c = lay_.cmp(at(x.idx), at(y.idx));
            if (c != 0) return c < 0;
          }
          return x.idx < y.idx;
        });
      i = j;
    }
  }

  // the first digit by one thread, then each of two threads sorts the buckets of half the entries
  void sort_entries(SortEntry* v, size_t n, const Key& key, int threads) const {
    const bool two = threads > 1 && n >= kParallelSort;
    if (!two) {
      sort_keys(v, n, key.total);
      sort_ties(v, n, key);
      return;
    }
    constexpr int kDigit = 11;
    std::vector<size_t> count(size_t{1} << kDigit);
    int below = key.total, shift = 0;
    for (;;) {
      if (below == 0) {
        sort_ties(v, n, key);
        return;
      }
      shift = std::max(below - kDigit, 0);
      const size_t mask = (size_t{1} << (below - shift)) - 1;
      std::fill(count.begin(), count.end(), 0);
      for (size_t i = 0; i < n; ++i) ++count[digit(v[i], shift, mask)];
      if (count[digit(v[0], shift, mask)] != n) break;
      below = shift;
    }
    const size_t buckets = size_t{1} << (below - shift);
    permute(v, count.data(), buckets, shift);
    std::vector<size_t> start(buckets + 1);
    for (size_t b = 0; b < buckets; ++b) start[b + 1] = start[b] + count[b];
    size_t split = 0;
    while (split < buckets && start[split + 1] <= n / 2) ++split;
    run_two(true, [&](int part) {
      const size_t from = part ? split : 0, to = part ? buckets : split;
      for (size_t b = from; b < to; ++b)
        if (count[b] > 1) sort_keys(v + start[b], count[b], shift);
      sort_ties(v + start[from], start[to] - start[from], key);
    });
  }

  std::vector<std::unique_ptr<Stream>> open_runs(const std::vector<std::string>& paths) const {
    std::vector<std::unique_ptr<Stream>> in;
    for (const std::string& p : paths) in.push_back(std::make_unique<FileStream>(p, lay_.words, mem_.io_bytes()));
    return in;
  }

  // more runs than kFanIn: the first kFanIn become one (open files and read buffers stay bounded)
  void merge_runs() {
    std::vector<std::string> group(runs_.begin(), runs_.begin() + kFanIn);
    runs_.erase(runs_.begin(), runs_.begin() + kFanIn);
    runs_.push_back(tmp_.new_file());
    {
      MergeStream m(open_runs(group), lay_);
      FileWriter w(runs_.back(), false, mem_.io_bytes());
      while (const uint32_t* r = m.next()) w.put(r, lay_.words);
      w.finish();
    }
    for (const std::string& p : group) ::unlink(p.c_str());
  }

  void clear_memory() noexcept {
    blocks_.clear();
    owned_.clear();
    for (char* p : pages_) mem_.give_page(p);
    pages_.clear();
    n_ = 0;
    if (aggregate_ && !reading_) slots_.assign(kInitialSlots, kEmpty), slots_.shrink_to_fit();
    if (!aggregate_) decltype(slots_)().swap(slots_);
    mem_.release(held_);
    held_ = 0;
    slot_charge_ = 0;
  }

  void place(uint64_t h, uint32_t e) {
    size_t mask = slots_.size() - 1, s = h & mask;
    while (slots_[s] != kEmpty) s = (s + 1) & mask;
    slots_[s] = (h & kTagMask) | e;
  }
  void rehash(size_t size) {
    slots_.assign(size, kEmpty);
    for (size_t e = 0; e < n_; ++e) place(hash(at(e)), static_cast<uint32_t>(e));
  }

  Memory& mem_;
  TempDir& tmp_;
  Layout lay_;
  Kind kind_;
  bool aggregate_;
  size_t per_block_ = 1, shift_ = 0, block_charge_ = 0;
  bool paged_ = false;
  size_t blocks_per_page_ = 0;
  std::vector<uint32_t*> blocks_;
  std::vector<std::unique_ptr<uint32_t[]>> owned_;  // the blocks, when not on pages
  std::vector<char*> pages_;
  size_t n_ = 0;
  std::vector<uint64_t, HugeAllocator<uint64_t>> slots_;  // a record number, and above it the top half of its hash
  SortIndex index_;
  std::vector<std::string> runs_;
  size_t held_ = 0, slot_charge_ = 0;
  bool reading_ = false;
};

void Memory::make_room(size_t bytes) {
  while (used_ + bytes > budget_) {
    Buffer* victim = nullptr;
    for (Buffer* b : buffers_)
      if (b->evictable() && (!victim || b->held() > victim->held())) victim = b;
    if (!victim) return;
    victim->spill();
  }
}

// of a word's bytes, eight at a time (words are short: one or two rounds)
inline uint64_t word_hash(std::string_view w) {
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (w.size() * 0xff51afd7ed558ccdull);
  size_t i = 0;
  for (; i + 8 <= w.size(); i += 8) {
    uint64_t x;
    std::memcpy(&x, w.data() + i, 8);
    h = (h ^ x) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
  }
  if (i < w.size()) {
    uint64_t x = 0;
    std::memcpy(&x, w.data() + i, w.size() - i);
    h = (h ^ x) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 32;
  }
  return h * 0xff51afd7ed558ccdull ^ (h >> 29);
}

// The length in bytes of the character at s[p] (before `end`) when it is whitespace as Python's
// str.isspace() says (what str.split() splits at: ASCII 9-13, 28-32, and U+0085, U+00A0, U+1680,
// U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000 in UTF-8), else 0
inline size_t space_at(std::string_view s, size_t p, size_t end) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[p + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return (c == ' ' || (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x1f)) ? 1 : 0;
  if (c == 0xc2) return p + 1 < end && (b(1) == 0x85 || b(1) == 0xa0) ? 2 : 0;
  if (c < 0xe1 || c > 0xe3 || p + 2 >= end) return 0;
  const unsigned char d = b(1), e = b(2);
  if (c == 0xe1) return d == 0x9a && e == 0x80 ? 3 : 0;
  if (c == 0xe3) return d == 0x80 && e == 0x80 ? 3 : 0;
  if (d == 0x80) return e <= 0x8a || e == 0xa8 || e == 0xa9 || e == 0xaf ? 3 : 0;
  return d == 0x81 && e == 0x9f ? 3 : 0;
}

// printf's %.9g of x (Python's f"{x:.9g}"). std::to_chars gives it (it is specified as printf) but
// spent most of the ARPA formatter's time, the estimation's longest thread; this is exact for the
// magnitudes an ARPA file holds, 1e-5 <= |x| < 1e9, and leaves the others to std::to_chars. printf
// rounds the double's exact binary value to nine significant digits, ties to even: with x = m·2^k
// (m < 2^53, k < 0 in that range), x·10^s is m·10^s / 2^-k, whose integer part and remainder are
// exact in 128 bits (m·10^s < 2^53·10^14 < 2^100).
char* format_g9(char* buf, double x) {
  const double a = std::fabs(x);
  if (!(a >= 1e-5 && a < 1e9)) return std::to_chars(buf, buf + 40, x, std::chars_format::general, 9).ptr;
  uint64_t bits;
  std::memcpy(&bits, &a, sizeof bits);
  const int biased = static_cast<int>(bits >> 52);  // a normal number in this range
  const uint64_t m = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
  const int sh = 1075 - biased;  // a = m / 2^sh, with 23 <= sh <= 69 in this range
  static constexpr uint64_t kPow10[] = {1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull,
                                        10000000ull, 100000000ull, 1000000000ull, 10000000000ull,
                                        100000000000ull, 1000000000000ull, 10000000000000ull,
                                        100000000000000ull, 1000000000000000ull};
  // the decimal exponent from the binary one (log10(2) = 0.30103), off by at most one: corrected below
  int e = static_cast<int>(std::floor((biased - 1023) * 0.30102999566398120));
  uint64_t q = 0;
  for (int tries = 0;; ++tries) {
    const int s = 8 - e;  // q = round(a·10^s) has nine digits when e is right
    if (s < 0 || s > 15 || tries > 3) return std::to_chars(buf, buf + 40, x, std::chars_format::general, 9).ptr;
    const unsigned __int128 n = static_cast<unsigned __int128>(m) * kPow10[s];
    q = static_cast<uint64_t>(n >> sh);
    const unsigned __int128 rem = n & ((static_cast<unsigned __int128>(1) << sh) - 1);
    const unsigned __int128 half = static_cast<unsigned __int128>(1) << (sh - 1);
    if (rem > half || (rem == half && (q & 1))) ++q;
    if (q >= kPow10[9]) {
      ++e;
    } else if (q < kPow10[8]) {
      --e;
    } else {
      break;
    }
  }
  char digits[9];
  for (int i = 8; i >= 0; --i) digits[i] = static_cast<char>('0' + q % 10), q /= 10;
  int last = 8;  // %g drops trailing zeros
  while (last > 0 && digits[last] == '0') --last;
  char* p = buf;
  if (x < 0) *p++ = '-';
  if (e < -4) {  // d.ddde-XX
    *p++ = digits[0];
    if (last > 0) {
      *p++ = '.';
      for (int i = 1; i <= last; ++i) *p++ = digits[i];
    }
    *p++ = 'e';
    *p++ = '-';
    const int x10 = -e;
    if (x10 >= 100) *p++ = static_cast<char>('0' + x10 / 100);
    *p++ = static_cast<char>('0' + x10 / 10 % 10);
    *p++ = static_cast<char>('0' + x10 % 10);
    return p;
  }
  if (e >= 0) {  // the integer part's e + 1 digits, then the decimals left
    for (int i = 0; i <= e; ++i) *p++ = digits[i];
    if (last > e) {
      *p++ = '.';
      for (int i = e + 1; i <= last; ++i) *p++ = digits[i];
    }
    return p;
  }
  *p++ = '0';  // 0.000ddd
  *p++ = '.';
  for (int i = 0; i < -e - 1; ++i) *p++ = '0';
  for (int i = 0; i <= last; ++i) *p++ = digits[i];
  return p;
}

// as arpa._log10, printf's %.9g of log10(p), or -99 for a zero probability
void append_log10(std::string& out, double p) {
  char buf[48];
  out.append(buf, format_g9(buf, p > 0 ? std::log10(p) : -99.0));
}

// The write failed (disk full, ...) when the formatting threads write the ARPA text themselves:
// Python names the output
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The ARPA text, formatted on threads of their own while the estimation goes on (a quarter of the
// estimator's time was the log10s and the printing; lmplz also writes in a thread of its own). The
// lines are queued in chunks of records and come out as text in the order they were queued: written
// to the file descriptor by the formatting threads themselves (a plain file), or handed to `write`
// by the calling thread, the only one that touches Python.
class ArpaFormatter {
 public:
  ArpaFormatter(const std::vector<const std::string*>& by_rank, uint32_t bos, int order, const py::function& write,
                int fd, int workers)
      : by_rank_(by_rank), bos_(bos), order_(order), write_(write), fd_(fd) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { run(); });
  }

  ~ArpaFormatter() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

  void text(const std::string& s) {
    cur_->lens.push_back(-static_cast<int32_t>(cur_->literals.size()) - 1);
    cur_->literals.push_back(s);
  }

  void line(const uint32_t* key, int len, double p, double bo) {
    cur_->keys.insert(cur_->keys.end(), key, key + len);
    cur_->vals.push_back(p);
    cur_->vals.push_back(bo);
    cur_->lens.push_back(len);
    if (cur_->lens.size() >= kChunkLines) submit();
  }

  // formats and writes everything queued, in order
  void finish() {
    submit();
    std::unique_lock<std::mutex> lock(mu_);
    while (written_ < queued_) {
      drain(lock);
      if (written_ < queued_) wake_.wait(lock);
    }
    if (!write_error_.empty()) throw OutputError(write_error_);
  }

 private:
  static constexpr size_t kChunkLines = 1 << 15;
  static constexpr uint64_t kInFlight = 6;
  struct Chunk {
    std::vector<uint32_t> keys;
    std::vector<double> vals;        // p and back-off per n-gram line
    std::vector<int32_t> lens;       // > 0: an n-gram line of that length; < 0: literal -(i+1)
    std::vector<std::string> literals;
    uint64_t seq = 0;
  };

  void submit() {
    if (cur_->lens.empty()) return;
    std::unique_lock<std::mutex> lock(mu_);
    cur_->seq = queued_++;
    todo_.push_back(std::move(cur_));
    cur_ = std::make_unique<Chunk>();
    wake_.notify_all();
    drain(lock);
    while (queued_ - written_ > kInFlight) {
      wake_.wait(lock);
      drain(lock);
    }
  }

  // the calling thread hands the texts done, in order, to Python (the lock let go meanwhile)
  void drain(std::unique_lock<std::mutex>& lock) {
    if (fd_ >= 0) return;
    for (auto it = done_.find(written_); it != done_.end(); it = done_.find(written_)) {
      std::string text = std::move(it->second);
      done_.erase(it);
      lock.unlock();
      write_(py::bytes(text));
      lock.lock();
      ++written_;
    }
  }

  void run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      while (todo_.empty() && !stop_) wake_.wait(lock);
      if (todo_.empty()) return;
      std::unique_ptr<Chunk> c = std::move(todo_.front());
      todo_.pop_front();
      lock.unlock();
      std::string out = format(*c);
      lock.lock();
      done_.emplace(c->seq, std::move(out));
      if (fd_ >= 0 && !writing_) write_in_order(lock);
      wake_.notify_all();
    }
  }

  // one formatting thread at a time writes the texts done, in order, to the file descriptor
  void write_in_order(std::unique_lock<std::mutex>& lock) {
    writing_ = true;
    for (auto it = done_.find(written_); it != done_.end(); it = done_.find(written_)) {
      std::string text = std::move(it->second);
      done_.erase(it);
      lock.unlock();
      std::string error = write_error_.empty() ? write_all(text) : std::string();
      lock.lock();
      if (!error.empty() && write_error_.empty()) write_error_ = error;
      ++written_;
      wake_.notify_all();
    }
    writing_ = false;
  }

  std::string write_all(const std::string& text) const {
    for (size_t off = 0; off < text.size();) {
      ssize_t w = ::write(fd_, text.data() + off, text.size() - off);
      if (w < 0) {
        if (errno == EINTR) continue;
        return std::strerror(errno);
      }
      off += static_cast<size_t>(w);
    }
    return std::string();
  }

  std::string format(const Chunk& c) const {
    std::string out;
    out.reserve(c.lens.size() * 48);
    const uint32_t* key = c.keys.data();
    const double* v = c.vals.data();
    for (int32_t len : c.lens) {
      if (len < 0) {
        out += c.literals[-len - 1];
        continue;
      }
      if (len == 1 && key[0] == bos_) {
        out += '0';
      } else {
        append_log10(out, v[0]);
      }
      out += '\t';
      for (int j = 0; j < len; ++j) {
        if (j) out += ' ';
        out += *by_rank_[key[j]];
      }
      if (len < order_) {
        out += '\t';
        if (v[1] != 1.0) {
          append_log10(out, v[1]);
        } else {
          out += '0';
        }
      }
      out += '\n';
      key += len;
      v += 2;
    }
    return out;
  }

  const std::vector<const std::string*>& by_rank_;
  uint32_t bos_;
  int order_;
  const py::function& write_;
  int fd_;
  std::unique_ptr<Chunk> cur_ = std::make_unique<Chunk>();
  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::unique_ptr<Chunk>> todo_;
  std::map<uint64_t, std::string> done_;  // by sequence number, until written
  uint64_t queued_ = 0, written_ = 0;
  bool writing_ = false, stop_ = false;
  std::string write_error_;
  std::vector<std::thread> threads_;  // last: they start once everything they read is built
};

class KneserNeyCounter {
 public:
  KneserNeyCounter(int order, uint64_t memory, const std::string& temp_dir, int threads)
      : order_(order), mem_(memory, threads), tmp_(temp_dir) {
    if (threads < 1) throw std::invalid_argument("at least one thread");
    if (order < 1) throw std::invalid_argument("language model order must be at least 1");
    if (memory == 0) throw std::invalid_argument("the memory budget must be positive");
    for (const char* w : {"<s>", "</s>", "<unk>"}) id(w);
    // grams_[k-1]: for k == order every k-gram (raw counts), below it the k-grams that begin at <s>
    for (int k = 1; k <= order; ++k) {
      Layout lay = suffix_order(k, 2);
      lay.rank = &rank_;
      lay.combine = true;
      grams_.push_back(std::make_unique<Buffer>(mem_, tmp_, std::move(lay), Buffer::kSorted, true));
      grams_.back()->before_sort = [this] { refresh_ranks(); };
    }
  }

  ~KneserNeyCounter() { close(); }
  KneserNeyCounter(const KneserNeyCounter&) = delete;
  KneserNeyCounter& operator=(const KneserNeyCounter&) = delete;

  // Lines of UTF-8 text (checked by the caller), each split at whitespace as Python's str.split()
  // splits it; a line with no word is skipped, as `cad lm` skips blank lines (the token lists
  // handed to `add` come joined by single spaces, one list per line, none empty)
  void add_lines(std::string_view text) {
    if (adjusted_done_) throw std::logic_error("add() after the counts were adjusted");
    if (closed_) throw std::logic_error("the counter is closed");
    Chunk c;
    size_t pos = 0;
    while (pos < text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      const size_t first = c.ids.size();
      c.ids.push_back(kBos);
      size_t p = pos;
      while (p < end) {
        size_t sp = space_at(text, p, end);
        if (sp) {
          p += sp;
          continue;
        }
        size_t q = p + 1;
        while (q < end && !space_at(text, q, end)) ++q;
        uint32_t t = id(text.substr(p, q - p));
        if (t == kBos || t == kEos) reserved_ = true;
        c.ids.push_back(t);
        p = q;
      }
      if (c.ids.size() - first > 1) {
        c.ids.push_back(kEos);
        c.lens.push_back(static_cast<uint32_t>(c.ids.size() - first));
        ++sentences_;
      } else {
        c.ids.resize(first);
      }
      pos = end + 1;
    }
    if (mem_.threads() == 1) {
      count_chunk(c);
      return;
    }
    // the counting thread takes it; at most two chunks wait, which keeps the reader a chunk ahead
    std::unique_lock<std::mutex> lock(count_mu_);
    if (!count_thread_.joinable()) count_thread_ = std::thread([this] { count_loop(); });
    count_cv_.wait(lock, [this] { return count_todo_.size() < 2 || count_err_; });
    if (count_err_) std::rethrow_exception(count_err_);
    count_todo_.push_back(std::move(c));
    count_cv_.notify_all();
  }

  int64_t sentences() const { return sentences_; }
  bool reserved() const { return reserved_; }
  uint64_t temp_files() const { return tmp_.files(); }

  // per order, the number of n-grams whose adjusted count is 1, 2, 3 and 4
  std::vector<std::array<uint64_t, 4>> counts_of_counts() {
    adjust();
    return coc_;
  }

  // the ARPA text, written to `fd` (>= 0) by the formatting threads, else handed to `write` in pieces
  void write_arpa(const std::vector<std::array<double, 3>>& discounts, const py::function& write, int fd) {
    adjust();
    if (static_cast<int>(discounts.size()) != order_) throw std::invalid_argument("one discount triple per order");
    if (written_) throw std::logic_error("write_arpa() runs once");
    written_ = true;
    unigram_probabilities(discounts[0]);
    ArpaFormatter out(by_rank_, bos_, order_, write, fd, mem_.threads());
    out_ = &out;
    std::string head = "\\data\\\n";
    for (int n = 0; n < order_; ++n) head += "ngram " + std::to_string(n + 1) + "=" + std::to_string(sizes_[n]) + "\n";
    out.text(head);
    if (order_ == 1) write_unigrams(nullptr);
    std::unique_ptr<Buffer> lower;  // the probabilities of the previous order, in word order
    for (int len = 2; len <= order_; ++len) {
      if (len > 2 && lower->in_memory() && lower->build_index()) {
        auto prob = std::make_unique<Buffer>(mem_, tmp_, word_order(len, 2), Buffer::kSequential);
        join_pass(len, discounts[len - 1], *lower, *prob);
        lower = std::move(prob);
        continue;
      }
      auto backoff = std::make_unique<Buffer>(mem_, tmp_, word_order(len - 1, 2), Buffer::kSequential);
      std::unique_ptr<Buffer> terms =
          len == 2 ? std::make_unique<Buffer>(mem_, tmp_, word_order(2, 2), Buffer::kSequential)
                   : std::make_unique<Buffer>(mem_, tmp_, bounded(suffix_word_order(len, 4)), Buffer::kSorted);
      context_pass(len, discounts[len - 1], *backoff, *terms);
      if (len == 2) {
        auto bo = backoff->open();
        write_unigrams(bo.get());
        lower = std::move(terms);
      } else {
        auto prob = std::make_unique<Buffer>(mem_, tmp_, bounded(word_order(len, 2)), Buffer::kSorted);
        interpolate(len, *terms, *lower, *backoff, *prob);
        lower = std::move(prob);
      }
    }
    if (order_ > 1) {
      section(order_);
      auto in = lower->open();
      while (const uint32_t* r = in->next()) line(r, order_, get_f64(r + order_), 1.0);
    }
    out.text("\n\\end\\\n");
    out.finish();
    out_ = nullptr;
  }

  // frees the memory and removes the temporary directory; the counter is unusable afterwards
  void close() noexcept {
    try {
      finish_counting();
    } catch (...) {  // reported by the call that needed the counts, or of no interest any more
    }
    grams_.clear();
    contexts_.clear();
    tmp_.remove();
    closed_ = true;
  }

 private:
  uint32_t id(std::string_view w) {
    const uint64_t h = word_hash(w);
    size_t mask = word_slots_.size() - 1, s = h & mask;
    for (;; s = (s + 1) & mask) {
      const WordSlot& e = word_slots_[s];
      if (e.id == kNoWord) break;
      if (e.hash == h && words_[e.id] == w) return e.id;
    }
    uint32_t i = static_cast<uint32_t>(words_.size());
    {
      std::lock_guard<std::mutex> lock(vocab_mu_);  // refresh_ranks() may be reading
      words_.emplace_back(w);
    }
    word_slots_[s] = {h, i};
    if (words_.size() * 2 > word_slots_.size()) {
      std::vector<WordSlot> old(word_slots_.size() * 2, WordSlot{0, kNoWord});
      old.swap(word_slots_);
      mask = word_slots_.size() - 1;
      for (const WordSlot& e : old) {
        if (e.id == kNoWord) continue;
        size_t t = e.hash & mask;
        while (word_slots_[t].id != kNoWord) t = (t + 1) & mask;
        word_slots_[t] = e;
      }
    }
    return i;
  }

  // sentences as word ids, <s> and </s> included, one after the other
  struct Chunk {
    std::vector<uint32_t> ids, lens;
  };

  void count_chunk(const Chunk& c) {
    const uint32_t* w = c.ids.data();
    for (uint32_t len : c.lens) {
      count_sentence(w, static_cast<int>(len));
      w += len;
    }
  }

  // the counting thread: chunks in the order they came, until finish_counting()
  void count_loop() {
    std::unique_lock<std::mutex> lock(count_mu_);
    for (;;) {
      count_cv_.wait(lock, [this] { return !count_todo_.empty() || count_stop_; });
      if (count_todo_.empty()) return;
      Chunk c = std::move(count_todo_.front());
      lock.unlock();
      try {
        count_chunk(c);
      } catch (...) {
        lock.lock();
        count_err_ = std::current_exception();
        count_todo_.clear();
        count_cv_.notify_all();
        return;
      }
      lock.lock();
      count_todo_.pop_front();
      count_cv_.notify_all();
    }
  }

  // every chunk counted (the counting thread gone); its error, if any, is thrown here
  void finish_counting() {
    {
      std::lock_guard<std::mutex> lock(count_mu_);
      count_stop_ = true;
    }
    count_cv_.notify_all();
    if (count_thread_.joinable()) count_thread_.join();
    if (count_err_) std::rethrow_exception(count_err_);
  }

  void count_sentence(const uint32_t* w, int len) {
    Buffer& top = *grams_[order_ - 1];
    const int grams = len - order_ + 1;
    if (grams > 0) {
      hashes_.resize(grams);
      for (int i = 0; i < grams; ++i) top.prefetch_slot(hashes_[i] = top.hash(&w[i]));
      for (int i = 0; i < grams; ++i) top.prefetch_record(hashes_[i]);
      for (int i = 0; i < grams; ++i) bump(top.find_or_add(&w[i], hashes_[i]), order_);
    }
    // n-grams that begin at <s> keep raw counts at every order below the highest (a padded
    // sentence shorter than the order is itself such an n-gram)
    for (int n = 1; n < std::min(order_, len + 1); ++n) {
      Buffer& b = *grams_[n - 1];
      bump(b.find_or_add(&w[0], b.hash(&w[0])), n);
    }
  }
  static void bump(uint32_t* rec, int key) { set_u64(rec + key, get_u64(rec + key) + 1); }

  // ids ordered as Python orders str: by code point, which is UTF-8's byte order
  std::vector<uint32_t> word_ranks() const {
    std::vector<uint32_t> order(words_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return words_[a] < words_[b]; });
    std::vector<uint32_t> rank(words_.size());
    for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<uint32_t>(r);
    return rank;
  }
  // (on the counting thread, while the reading thread may add words)
  void refresh_ranks() {
    std::lock_guard<std::mutex> lock(vocab_mu_);
    if (rank_.size() != words_.size()) rank_ = word_ranks();
  }

  // a layout of word ranks, which the vocabulary bounds (once it is complete)
  Layout bounded(Layout lay) const {
    lay.bound = words_.size();
    return lay;
  }

  // -- pass 2: adjusted counts ------------------------------------------------------------------

  // one lower order while the adjusting pass runs: the suffix being counted and the <s> n-grams
  struct Level {
    std::vector<uint32_t> cur, start;
    uint64_t count = 0, start_count = 0;
    bool has = false, has_start = false;
    std::unique_ptr<Stream> starts;
  };

  void adjust() {
    if (closed_) throw std::logic_error("the counter is closed");
    if (adjusted_done_) return;
    adjusted_done_ = true;
    finish_counting();
    rank_ = word_ranks();
    by_rank_.resize(words_.size());
    for (size_t i = 0; i < words_.size(); ++i) by_rank_[rank_[i]] = &words_[i];
    bos_ = rank_[kBos], eos_ = rank_[kEos], unk_ = rank_[kUnk];
    uni_count_.assign(words_.size(), 0);
    uni_present_.assign(words_.size(), 0);
    coc_.assign(order_, std::array<uint64_t, 4>{0, 0, 0, 0});
    sizes_.assign(order_, 0);
    contexts_.resize(order_ + 1);
    for (int k = 2; k <= order_; ++k)
      contexts_[k] = std::make_unique<Buffer>(mem_, tmp_, bounded(word_order(k, 2)), Buffer::kSorted);

    scratch_.resize(order_ + 2);
    levels_.clear();
    levels_.resize(order_);
    for (int k = 1; k < order_; ++k) {
      levels_[k].starts = grams_[k - 1]->open();
      pull_start(k);
    }
    {
      auto top = grams_[order_ - 1]->open();
      std::vector<uint32_t> key(order_);
      while (const uint32_t* r = top->next()) {
        for (int i = 0; i < order_; ++i) key[i] = rank_[r[i]];
        emit_final(order_, key.data(), get_u64(r + order_));
      }
    }
    for (int k = order_ - 1; k >= 1; --k) {
      Level& lv = levels_[k];
      if (lv.has) {
        lv.has = false;
        emit(k, lv.cur.data(), lv.count);
      }
      while (lv.has_start) {
        emit_final(k, lv.start.data(), lv.start_count);
        pull_start(k);
      }
    }
    levels_.clear();
    grams_.clear();

    // <s> is never predicted: it stays in the table (it is a context and is written with
    // probability 0) but not among the counts; <unk> and </s> get only the interpolation mass
    for (uint32_t w : {bos_, unk_, eos_}) uni_present_[w] = 1;
    for (size_t w = 0; w < words_.size(); ++w) {
      if (!uni_present_[w]) continue;
      ++sizes_[0];
      if (w != bos_) tally(0, uni_count_[w]);
    }
    vocab_size_ = sizes_[0] - 1;
  }

  void pull_start(int k) {
    Level& lv = levels_[k];
    const uint32_t* r = lv.starts->next();
    lv.has_start = r != nullptr;
    if (!r) return;
    lv.start.resize(k);
    for (int i = 0; i < k; ++i) lv.start[i] = rank_[r[i]];
    lv.start_count = get_u64(r + k);
  }

  void tally(int n, uint64_t c) {
    if (c >= 1 && c <= 4) ++coc_[n][c - 1];
  }

  // a (k+1)-gram, in suffix order: one more left extension of its suffix
  void feed(int k, const uint32_t* higher) {
    Level& lv = levels_[k];
    const uint32_t* suf = higher + 1;
    if (lv.has && same_words(suf, lv.cur.data(), k)) {
      ++lv.count;
      return;
    }
    if (lv.has) emit(k, lv.cur.data(), lv.count);
    lv.cur.assign(suf, suf + k);
    lv.count = 1;
    lv.has = true;
  }

  // a k-gram's continuation count is complete: merge it with the <s> k-grams, in suffix order
  void emit(int k, const uint32_t* key, uint64_t count) {
    Level& lv = levels_[k];
    while (lv.has_start && suffix_cmp(lv.start.data(), key, k) < 0) {
      emit_final(k, lv.start.data(), lv.start_count);
      pull_start(k);
    }
    if (lv.has_start && same_words(key, lv.start.data(), k)) {
      count = lv.start_count;  // raw counts replace continuation counts
      pull_start(k);
    }
    emit_final(k, key, count);
  }

  void emit_final(int k, const uint32_t* key, uint64_t count) {
    if (k == 1) {
      uni_count_[key[0]] = count;
      uni_present_[key[0]] = 1;
      return;
    }
    ++sizes_[k - 1];
    tally(k - 1, count);
    // appended before feed(), which may come back here for the lower orders
    copy_words(scratch_.data(), key, k);
    set_u64(&scratch_[k], count);
    contexts_[k]->append(scratch_.data());
    feed(k - 1, key);
  }

  // -- pass 3: probabilities, back-offs, the ARPA text ------------------------------------------

  void unigram_probabilities(const std::array<double, 3>& d) {
    uint64_t denom = 0;
    std::array<uint64_t, 3> nk{0, 0, 0};
    for (size_t w = 0; w < words_.size(); ++w) {
      if (!uni_present_[w] || w == bos_) continue;
      uint64_t a = uni_count_[w];
      denom += a;
      if (a > 0) ++nk[std::min<uint64_t>(a, 3) - 1];
    }
    double g = gamma(d, nk, denom);
    double uniform = 1.0 / static_cast<double>(vocab_size_);
    uni_prob_.assign(words_.size(), 0.0);
    for (size_t w = 0; w < words_.size(); ++w) {
      if (!uni_present_[w] || w == bos_) continue;
      uni_prob_[w] = uninterpolated(d, uni_count_[w], denom) + g * uniform;
    }
  }

  static double gamma(const std::array<double, 3>& d, const std::array<uint64_t, 3>& nk, uint64_t denom) {
    return denom > 0 ? (d[0] * static_cast<double>(nk[0]) + d[1] * static_cast<double>(nk[1]) +
                        d[2] * static_cast<double>(nk[2])) /
                           static_cast<double>(denom)
                     : 1.0;
  }
  static double uninterpolated(const std::array<double, 3>& d, uint64_t a, uint64_t denom) {
    double disc = a > 0 ? d[std::min<uint64_t>(a, 3) - 1] : 0.0;
    return denom > 0 ? (static_cast<double>(a) - disc) / static_cast<double>(denom) : 0.0;
  }

  // The len-grams in context order, a context at a time, f(its n-grams, how many, the sum of their
  // counts, γ); a context's n-grams are held at once: at most one per word of the vocabulary
  template <class F>
  void for_each_context(int len, const std::array<double, 3>& d, F&& f) {
    auto in = contexts_[len]->open();
    const int w = len + 2;
    std::vector<uint32_t> group;
    size_t n = 0;
    auto flush_group = [&] {
      uint64_t denom = 0;
      std::array<uint64_t, 3> nk{0, 0, 0};
      for (size_t i = 0; i < n; ++i) {
        uint64_t a = get_u64(&group[i * w + len]);
        denom += a;
        if (a > 0) ++nk[std::min<uint64_t>(a, 3) - 1];
      }
      f(group.data(), n, denom, gamma(d, nk, denom));
      n = 0;
    };
    while (const uint32_t* r = in->next()) {
      if (n > 0 && !same_words(r, group.data(), len - 1)) flush_group();
      group.resize((n + 1) * w);
      copy_words(&group[n * w], r, w);
      ++n;
    }
    if (n > 0) flush_group();
    in.reset();
    contexts_[len].reset();
  }

  // Each context's γ goes to `backoff`, each n-gram's discounted term and γ to `terms` (bigrams:
  // their probability, as the unigrams are in memory)
  void context_pass(int len, const std::array<double, 3>& d, Buffer& backoff, Buffer& terms) {
    const int w = len + 2;
    std::vector<uint32_t> out(std::max(len + 4, len + 1));
    for_each_context(len, d, [&](const uint32_t* group, size_t n, uint64_t denom, double g) {
      copy_words(out.data(), group, len - 1);
      set_f64(&out[len - 1], g);
      backoff.append(out.data());
      for (size_t i = 0; i < n; ++i) {
        const uint32_t* r = &group[i * w];
        double u = uninterpolated(d, get_u64(r + len), denom);
        copy_words(out.data(), r, len);
        if (len == 2) {
          set_f64(&out[2], u + g * uni_prob_[r[1]]);
        } else {
          set_f64(&out[len], u);
          set_f64(&out[len + 2], g);
        }
        terms.append(out.data());
      }
    });
  }

  // With the (len-1)-grams' probabilities in memory and indexed (`lower`), each n-gram's probability
  // at once, p = term + γ p(suffix), in context order, which is word order: no sort on the way to
  // the ARPA file, where the other way (context_pass, interpolate) sorts every n-gram twice more.
  // The (len-1)-grams are written out as the contexts pass them, a context with its γ as back-off.
  void join_pass(int len, const std::array<double, 3>& d, Buffer& lower, Buffer& prob) {
    auto fs = lower.open();
    section(len - 1);
    const int n = len - 1, w = len + 2;
    const uint32_t* f = fs->next();
    // n-grams waiting for their suffix's probability, whose slots are fetched meanwhile
    std::vector<uint32_t> keys;
    std::vector<double> terms;  // u and γ
    std::vector<uint64_t> hashes;
    std::vector<uint32_t> out(len + 2);
    auto resolve = [&] {
      for (uint64_t h : hashes) lower.prefetch_record(h);
      for (size_t i = 0; i < hashes.size(); ++i) {
        const uint32_t* key = &keys[i * len];
        const uint32_t* s = lower.find(key + 1, hashes[i]);
        if (!s) throw std::logic_error("an n-gram's suffix is missing from the lower order");
        copy_words(out.data(), key, len);
        set_f64(&out[len], terms[2 * i] + terms[2 * i + 1] * get_f64(s + n));
        prob.append(out.data());
      }
      keys.clear();
      terms.clear();
      hashes.clear();
    };
    for_each_context(len, d, [&](const uint32_t* group, size_t count, uint64_t denom, double g) {
      for (; f && word_cmp(f, group, n) < 0; f = fs->next()) line(f, n, get_f64(f + n), 1.0);
      if (f && same_words(f, group, n)) {
        // lmplz gives no backoff to n-grams ending in </s> or <unk>: they are never contexts
        line(f, n, get_f64(f + n), f[n - 1] == eos_ || f[n - 1] == unk_ ? 1.0 : g);
        f = fs->next();
      }
      for (size_t i = 0; i < count; ++i) {
        const uint32_t* r = &group[i * w];
        keys.insert(keys.end(), r, r + len);
        terms.push_back(uninterpolated(d, get_u64(r + len), denom));
        terms.push_back(g);
        hashes.push_back(lower.hash(r + 1));
        lower.prefetch_slot(hashes.back());
      }
      if (hashes.size() >= kJoinBatch) resolve();
    });
    resolve();
    for (; f; f = fs->next()) line(f, n, get_f64(f + n), 1.0);
  }

  // p = term + γ p(suffix): `terms` in suffix-word order meets the (len-1)-grams' probabilities in
  // word order, which are written out (with their back-offs) as the merge passes them
  void interpolate(int len, Buffer& terms, Buffer& lower, Buffer& backoff, Buffer& prob) {
    auto xs = terms.open();
    auto fs = lower.open();
    auto bs = backoff.open();
    bo_ = bs.get();
    bo_head_ = bo_->next();
    section(len - 1);
    const int n = len - 1;
    std::vector<uint32_t> out(len + 2);
    const uint32_t* f = fs->next();
    while (const uint32_t* x = xs->next()) {
      const uint32_t* suf = x + 1;
      while (f && word_cmp(f, suf, n) < 0) {
        line(f, n, get_f64(f + n), backoff_of(f, n));
        f = fs->next();
      }
      if (!f || !same_words(suf, f, n)) throw std::logic_error("an n-gram's suffix is missing from the lower order");
      copy_words(out.data(), x, len);
      set_f64(&out[len], get_f64(x + len) + get_f64(x + len + 2) * get_f64(f + n));
      prob.append(out.data());
    }
    for (; f; f = fs->next()) line(f, n, get_f64(f + n), backoff_of(f, n));
    bo_ = nullptr;
  }

  void write_unigrams(Stream* backoff) {
    bo_ = backoff;
    bo_head_ = bo_ ? bo_->next() : nullptr;
    section(1);
    uint32_t key;
    for (size_t w = 0; w < words_.size(); ++w) {
      if (!uni_present_[w]) continue;
      key = static_cast<uint32_t>(w);
      line(&key, 1, uni_prob_[w], backoff ? backoff_of(&key, 1) : 1.0);
    }
    bo_ = nullptr;
  }

  // the γ of the context `key`, from the back-off stream in word order (1: not a context)
  double backoff_of(const uint32_t* key, int n) {
    // lmplz gives no backoff to n-grams ending in </s> or <unk>: they are never contexts
    if (key[n - 1] == eos_ || key[n - 1] == unk_) return 1.0;
    while (bo_head_ && word_cmp(bo_head_, key, n) < 0) bo_head_ = bo_->next();
    if (bo_head_ && same_words(key, bo_head_, n)) return get_f64(bo_head_ + n);
    return 1.0;
  }

  void section(int len) { out_->text("\n\\" + std::to_string(len) + "-grams:\n"); }

  void line(const uint32_t* key, int len, double p, double bo) { out_->line(key, len, p, bo); }

  static constexpr size_t kJoinBatch = 64;  // n-grams whose suffixes are looked up together

  int order_;
  Memory mem_;
  TempDir tmp_;
  std::deque<std::string> words_;                  // a deque: by_rank_ points at its strings, which must not move
  // the ids of the words (open addressing: a node per word cost the counting thread a cache miss
  // a token, and the hash spares most string comparisons)
  struct WordSlot {
    uint64_t hash;
    uint32_t id;
  };
  static constexpr uint32_t kNoWord = UINT32_MAX;
  std::vector<WordSlot> word_slots_ = std::vector<WordSlot>(1024, WordSlot{0, kNoWord});
  std::vector<uint32_t> rank_;                     // id -> rank; from pass 2 on, records hold ranks
  std::vector<const std::string*> by_rank_;
  uint32_t bos_ = 0, eos_ = 1, unk_ = 2;
  std::vector<std::unique_ptr<Buffer>> grams_, contexts_;
  std::vector<Level> levels_;
  std::vector<uint32_t> scratch_;
  std::vector<uint64_t> hashes_;                   // counting: a sentence's n-grams'
  // the counting thread (threads > 1) and what it is handed
  std::thread count_thread_;
  std::mutex count_mu_, vocab_mu_;
  std::condition_variable count_cv_;
  std::deque<Chunk> count_todo_;
  bool count_stop_ = false;
  std::exception_ptr count_err_;
  std::vector<uint64_t> uni_count_;
  std::vector<char> uni_present_;
  std::vector<double> uni_prob_;
  std::vector<std::array<uint64_t, 4>> coc_;
  std::vector<uint64_t> sizes_;
  bool adjusted_done_ = false, reserved_ = false, written_ = false, closed_ = false;
  int64_t sentences_ = 0;
  uint64_t vocab_size_ = 0;
  ArpaFormatter* out_ = nullptr;              // during write_arpa
  Stream* bo_ = nullptr;
  const uint32_t* bo_head_ = nullptr;
};

}  // namespace

PYBIND11_MODULE(_kn, m) {
  m.doc() = "Modified Kneser-Ney counting and ARPA writing (cad.lm.kneser_ney's native engine)";
  py::register_exception<TempFileError>(m, "TempFileError", PyExc_OSError);
  py::register_exception<OutputError>(m, "OutputError", PyExc_OSError);
  py::class_<KneserNeyCounter>(m, "KneserNeyCounter")
      .def(py::init<int, uint64_t, const std::string&, int>(), py::arg("order"), py::arg("memory"), py::arg("temp_dir"),
           py::arg("threads") = 1)
      .def("add",
           [](KneserNeyCounter& c, const std::string& text) {
             py::gil_scoped_release unlocked;  // Python reads the next batch meanwhile
             c.add_lines(text);
           },
           py::arg("text"))
      .def("add_lines",
           [](KneserNeyCounter& c, const py::bytes& text) {
             std::string_view v(text);
             py::gil_scoped_release unlocked;
             c.add_lines(v);
           },
           py::arg("text"))
      .def("sentences", &KneserNeyCounter::sentences)
      .def("reserved", &KneserNeyCounter::reserved)
      .def("temp_files", &KneserNeyCounter::temp_files)
      .def("counts_of_counts", &KneserNeyCounter::counts_of_counts)
      .def("write_arpa", &KneserNeyCounter::write_arpa, py::arg("discounts"), py::arg("write"), py::arg("fd") = -1)
      .def("close", &KneserNeyCounter::close);
  // the ARPA writer's number format, for the tests: f"{x:.9g}"
  m.def("format_g9", [](double x) {
    char buf[48];
    return std::string(buf, format_g9(buf, x));
  }, py::arg("x"));
}
