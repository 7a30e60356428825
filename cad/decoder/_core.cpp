// The compiled search core of cad's decoder: normal stack search and cube pruning over the
// translation options that Python collected and scored with the stateless features, extended
// natively through the stateful features Moses's phrase-based systems use (distance distortion,
// msd-bidirectional-fe lexicalized reordering, KenLM n-gram models, the pronoun agreement of
// cad/decoder/agreement.py). It is the Python search of
// cad/decoder/search.py step for step (same expansion order, same floating-point operations in
// the same order, same tie-breaking), so its output is identical; cad/decoder/native.py checks
// what it can run and falls back to Python for anything else.
//
// The LMs are the ones the Python `kenlm` module already loaded: each lm::base::Model is called
// through KenLM's virtual interface (declared below with the same virtual functions and members
// in the same order, which is all the calls rely on), so a model is loaded once and no KenLM
// source or header is needed to build this file. Any number of LMs, each its own feature (Moses's
// LM0, LM1, ... for an out-of-domain and an in-domain model): a hypothesis holds one block of
// states, every LM's state at its own offset in it.

#include <atomic>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <queue>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace lm {
typedef unsigned int WordIndex;
namespace base {
struct OpaqueStringPiece;

class Vocabulary {
 public:
  virtual ~Vocabulary();
  virtual WordIndex Index(const OpaqueStringPiece &str) const = 0;
  virtual WordIndex Index(const std::string &str) const = 0;
  virtual WordIndex Index(const char *str) const = 0;

  WordIndex begin_sentence_, end_sentence_, not_found_;
};

class Model {
 public:
  virtual ~Model();
  virtual float BaseScore(const void *in_state, const WordIndex new_word, void *out_state) const = 0;
  // BaseFullScore and BaseFullScoreForgotState follow in the vtable; they are not called here.

  size_t state_size_;
  const void *begin_sentence_memory_, *null_context_memory_;
  const Vocabulary *base_vocab_;
  unsigned char order_;
};
}  // namespace base
}  // namespace lm

namespace {

constexpr double NEG_INF = -std::numeric_limits<double>::infinity();
// The coverage is a window of WINDOW source positions from the first uncovered one (`base`):
// every position before `base` is covered. Under a distortion limit no phrase ends more than
// max(limit, longest phrase) words beyond the first gap, so a window of this size holds any
// coverage of a sentence of any length (a sentence of at most WINDOW words fits whatever the limit).
constexpr int WINDOW = 256;
// Sentences up to this length get the whole future-cost table by Moses's cubic recursion, as the
// Python search computes it; longer ones the band of short spans and the suffixes (linear).
constexpr int EXACT_WORDS = 256;

struct Coverage {
  int base = 0;
  std::array<uint64_t, WINDOW / 64> bits{};
  bool operator==(const Coverage &o) const { return base == o.base && bits == o.bits; }
  bool operator!=(const Coverage &o) const { return !(*this == o); }
};

enum Kind { DISTORTION = 0, REORDERING = 1, LANGUAGE_MODEL = 2, AGREEMENT = 3 };
// the pronoun agreement's states (cad/lang/fr_agreement.py, STATES): an option's table holds, for
// each state it may start in, the state it ends in, then the agreeing predicates it holds, then the
// disagreeing ones
constexpr int AGREEMENT_STATES = 11;
enum Orientation { MONO = 0, SWAP = 1, OTHER = 2 };

inline bool covered(const Coverage &c, int i) {
  if (i < c.base) return true;
  int k = i - c.base;
  if (k >= WINDOW) return false;
  return (c.bits[k >> 6] >> (k & 63)) & 1;
}

// the window shifted right by `k` bits (0 < k <= WINDOW)
inline void shift_window(Coverage &c, int k) {
  constexpr int WORDS = WINDOW / 64;
  int words = k >> 6, bits = k & 63;
  for (int w = 0; w < WORDS; ++w) {
    int from = w + words;
    uint64_t lo = from < WORDS ? c.bits[from] : 0;
    uint64_t hi = from + 1 < WORDS ? c.bits[from + 1] : 0;
    c.bits[w] = bits ? (lo >> bits) | (hi << (64 - bits)) : lo;
  }
  c.base += k;
}

// cover [s, e) (within the window), then move the window to the first gap
inline void cover(Coverage &c, int s, int e) {
  for (int i = s; i < e; ++i) {
    int k = i - c.base;
    c.bits[k >> 6] |= uint64_t(1) << (k & 63);
  }
  int ones = 0;
  for (int w = 0; w < WINDOW / 64; ++w) {
    if (c.bits[w] == ~uint64_t(0)) {
      ones += 64;
      continue;
    }
    ones += __builtin_ctzll(~c.bits[w]);
    break;
  }
  if (ones > 0) shift_window(c, ones);
}

// the first position from i on (within the window) that is covered (`covered` true) or not, else
// the window's end
inline int next_with(const Coverage &c, int i, bool covered) {
  const int k = i - c.base;
  for (int w = k >> 6; w < WINDOW / 64; ++w) {
    uint64_t x = covered ? c.bits[w] : ~c.bits[w];
    if (w == (k >> 6)) x &= ~uint64_t(0) << (k & 63);
    if (x) return c.base + w * 64 + __builtin_ctzll(x);
  }
  return c.base + WINDOW;
}

// the last covered position of the window plus one (base when nothing in it is covered)
inline int covered_end(const Coverage &c) {
  for (int w = WINDOW / 64 - 1; w >= 0; --w)
    if (c.bits[w]) return c.base + w * 64 + 64 - __builtin_clzll(c.bits[w]);
  return c.base;
}

struct Option {
  int start, end;
  double stateless;
  double future;  // stateless + the stateful features' estimate: the future-cost table's input
  // its words' indices in LM k: word_count of them from words_[word_first + k * word_count]
  int word_first = 0, word_count = 0;
  bool has_ro = false;
  double ro[6] = {0, 0, 0, 0, 0, 0};
  bool has_agr = false;
  uint8_t agr[3 * AGREEMENT_STATES] = {};
};

// One n-gram model the core reads: KenLM's model behind a kenlm.Model, and where its state lies
// in a hypothesis's block of LM states
struct NgramModel {
  lm::base::Model *model = nullptr;
  py::object owner;  // keeps the Python model (and so its C++ model) alive
  size_t state_size = 0;
  int context_words = 0;
  lm::WordIndex end_sentence = 0;
  size_t offset = 0;  // of its state within a block
};

struct Feature {
  int kind;
  std::vector<double> weights;
  bool expensive;
  double bound;  // the most this feature and the ones after it can add (Decoder._bounds)
  int lm = -1;   // a LANGUAGE_MODEL feature: its LM, the core's k-th for the k-th such feature
  const NgramModel *ngram = nullptr;  // that LM (lms_[lm]: one load less per use in the search)
};

// A hypothesis's stateful part: the distortion's and the reordering's state are plain numbers;
// each LM's state is KenLM's ngram State (its words and length decide equality).
struct Hyp {
  int prev, opt;
  Coverage cov;
  int ncov;
  double score, total;
  // the last option's span: also the distortion's state (its end) and, with its forward
  // scores (read from the option), the lexicalized reordering's; the root's is (0, 0)
  int last_start, last_end;
  int lm_state = -1;  // offset of its block of LM states (every LM's) in the sentence's pool
  uint8_t agr = 0;    // the pronoun agreement's state
  // the recombination arcs (hypotheses of the same key that lost to this one), in the order
  // they were added: a list in the core's arc pool, -1 for none. Small hypotheses are most of
  // a search's memory traffic (tens of millions made per dev run)
  int arc_first = -1, arc_last = -1;
};

class Core {
 public:
  // `kenlm_models`: the kenlm.Model of each LM feature, in the order of those features
  Core(py::list kenlm_models, double ln10) : ln10_(ln10) {
    static std::atomic<uint64_t> cores{0};
    serial_ = ++cores;
    for (py::handle m : kenlm_models) add_model(py::reinterpret_borrow<py::object>(m));
  }

  bool has_lm() const { return !lms_.empty(); }
  int lm_count() const { return static_cast<int>(lms_.size()); }

  // tests: collect unreachable hypotheses from `n` hypotheses on, and count the collections
  void set_collect_at(size_t n) { collect_at_ = n; }
  size_t collections() const { return collections_; }

  // log10 probability of `word` after the begin-of-sentence state in LM `lm`, read natively, so
  // that Python can check this core against the kenlm module before trusting it
  double probe(const std::string &word, int lm) const {
    if (lm < 0 || lm >= lm_count()) throw std::runtime_error("no such LM in this core");
    const lm::base::Model *m = lms_[lm].model;
    std::vector<char> out(m->state_size_);
    return m->BaseScore(m->begin_sentence_memory_, m->base_vocab_->Index(word.c_str()), out.data());
  }

  // Whether the core can search a sentence of `n` words whose longest option spans `max_len`
  // words under distortion limit `limit` (-1: none): the coverage window must hold every coverage.
  static bool fits(int n, int limit, int max_len) {
    return n <= WINDOW || (limit >= 0 && limit < WINDOW && max_len < WINDOW);
  }

  py::tuple search(int n, py::list options, py::list spans, py::list features, int algorithm, int stack_size,
                   double log_beam, int limit, int pop_limit, int nbest, bool distinct) {
    if (n <= 0) throw std::runtime_error("sentence length outside the core's range");
    // the search state lives in the core and the GIL is released during the search: one
    // search at a time per core
    if (busy_.exchange(true)) throw std::runtime_error("a search core serves one search at a time");
    struct Free {
      std::atomic<bool> &flag;
      ~Free() { flag = false; }
    } free_on_exit{busy_};
    n_ = n;
    keep_arcs_ = nbest > 0;     // the recombination arcs serve only the n-best lists
    read_features(features);
    read_options(options);
    read_spans(spans);
    if (!fits(n, limit, max_len_)) throw std::runtime_error("sentence outside the core's coverage window");
    std::vector<int> finals;
    {
      // the search itself touches no Python object: other threads (the source analysis of
      // the next documents) run meanwhile
      py::gil_scoped_release unlocked;
      hyps_.clear();
      arcs_.clear();
      pool_.clear();
      spans_cache_.clear();
      future_costs(limit);
      next_collect_ = collect_at_;

      Hyp root;
      root.prev = -1;
      root.opt = -1;
      root.cov = Coverage{};
      root.ncov = 0;
      root.score = 0.0;
      root.total = fc_of(root.cov);
      root.last_start = root.last_end = 0;
      if (!lms_.empty()) {
        root.lm_state = new_state();
        for (const NgramModel &m : lms_)
          std::memcpy(&pool_[root.lm_state + m.offset], m.model->begin_sentence_memory_, m.state_size);
      }
      hyps_.push_back(root);
      std::vector<Stack> stacks(n + 1, Stack(this));
      stacks[0].add(0);
      if (algorithm == 1) {
        cube_pruning(stacks, pop_limit, limit, stack_size, log_beam);
      } else {
        normal(stacks, limit, stack_size, log_beam);
      }
      finals = prune(stacks[n], stack_size, log_beam);
    }
    if (finals.empty()) throw std::runtime_error("no complete translation survived the search");
    py::list best = py::cast(chain_options(chain(finals[0])));
    py::list lists;
    if (nbest > 0) lists = nbest_chains(finals, nbest, distinct);
    return py::make_tuple(best, lists);
  }

  // The table limit's candidates among one source phrase's entries of a text phrase table
  // (cad/decoder/ranking.py): `text` holds the entries as tables.py's _TextEntries keeps them,
  // `target ||| scores ||| alignment` a line, the target's words one space apart. Each entry's
  // context-free future score is computed as options.py's _score computes a template's (the
  // stateless `terms`, then each LM's estimate, `lm_terms`), and the lines whose score is within
  // `margin` (relative) of the `limit`-th best are returned, in table order:
  // they hold every entry the Python sort keeps, which Python then scores and sorts exactly.
  // None when every entry is to be scored (at most `limit` of them, no limit, a score this
  // reader does not take, a future that is not finite, or an LM estimate above 0: Python's sort
  // decides those).
  // `text` is a view of the str's UTF-8 form (no copy per call: a common phrase's is megabytes)
  py::object limit_candidates(std::string_view text, int n_scores, py::list terms, py::list lm_terms, int limit,
                              double margin) {
    struct Term {
      int kind;  // 0: the table's scores, 1: minus the target's length, 2: one
      std::vector<double> weights;
    };
    std::vector<Term> stateless;
    for (py::handle item : terms) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      Term term{py::cast<int>(t[0]), py::cast<std::vector<double>>(t[1])};
      if (term.kind < 0 || term.kind > 2 || (term.kind == 0 ? term.weights.size() != static_cast<size_t>(n_scores)
                                                            : term.weights.size() != 1))
        throw std::runtime_error("a ranking term the core does not know");
      stateless.push_back(std::move(term));
    }
    std::vector<std::pair<const NgramModel *, double>> lms;
    for (py::handle item : lm_terms) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      int k = py::cast<int>(t[0]);
      if (k < 0 || k >= lm_count()) throw std::runtime_error("no such LM in this core");
      lms.emplace_back(&lms_[k], py::cast<double>(t[1]));
    }
    if (limit <= 0) return py::none();
    // first the entries' stateless sums, which cost no LM call
    std::vector<double> scores(n_scores), sums;
    std::vector<std::string_view> lines, targets;
    const std::string_view sep(" ||| ");
    std::string_view all(text);
    while (!all.empty()) {
      size_t nl = all.find('\n');
      std::string_view line = all.substr(0, nl);
      all = nl == std::string_view::npos ? std::string_view() : all.substr(nl + 1);
      size_t a = line.find(sep);
      if (a == std::string_view::npos) return py::none();
      size_t b = line.find(sep, a + sep.size());
      if (b == std::string_view::npos) return py::none();
      std::string_view target = line.substr(0, a), fields = line.substr(a + sep.size(), b - a - sep.size());
      if (!table_scores(fields, scores)) return py::none();
      size_t n_words = target.empty() ? 0 : std::count(target.begin(), target.end(), ' ') + 1;
      double s = 0.0;
      for (const Term &t : stateless) {
        double x = 0.0;
        if (t.kind == 0) {
          for (int i = 0; i < n_scores; ++i) x += t.weights[i] * scores[i];
        } else {
          x += t.weights[0] * (t.kind == 1 ? -static_cast<double>(n_words) : 1.0);
        }
        s += x;
      }
      if (!std::isfinite(s)) return py::none();
      sums.push_back(s);
      lines.push_back(line);
      targets.push_back(target);
    }
    const size_t n = sums.size();
    if (n <= static_cast<size_t>(limit)) return py::none();
    // Then the LMs' estimates, best stateless sum first, word by word. An LM's score is a log
    // probability, at most 0, so under weights of at least 0 the words an entry has left can only
    // lower its future: once its stateless sum plus its words' estimates so far fall below the
    // margin under the limit-th best future yet, the entry cannot be a candidate (the limit-th
    // best only rises), and once an entry's stateless sum alone does, no entry left can. Most of
    // a common phrase's LM calls are saved. A negative LM weight (no bound) estimates every word
    // of every entry; a score above 0 (no bound either) leaves the ranking to Python.
    bool bounded = true;
    for (const auto &lm : lms) bounded = bounded && lm.second >= 0;
    std::vector<uint32_t> order(n);
    for (size_t i = 0; i < n; ++i) order[i] = static_cast<uint32_t>(i);
    if (bounded) std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return sums[x] > sums[y]; });
    std::vector<double> futures(n, NEG_INF);
    std::vector<char> done(n, 0);
    std::priority_queue<double, std::vector<double>, std::greater<double>> best;   // the `limit` best futures
    auto floor_of = [margin](double kth) { return kth - margin * (1.0 + std::fabs(kth)); };
    std::string word;
    const size_t n_lms = lms.size();
    std::vector<std::vector<char>> states(n_lms), outs(n_lms);
    std::vector<double> totals(n_lms);
    // options.py's _score: the stateless sum plus each LM's weighted estimate, in the LMs' order
    auto future_of = [&](double s) {
      double est = 0.0;
      for (size_t k = 0; k < n_lms; ++k) est += totals[k] * ln10_ * lms[k].second;
      return s + est;
    };
    for (uint32_t i : order) {
      const bool full = best.size() == static_cast<size_t>(limit);
      const double floor = full ? floor_of(best.top()) : NEG_INF;
      if (bounded && full && sums[i] < floor) break;
      for (size_t k = 0; k < n_lms; ++k) {
        const lm::base::Model *m = lms[k].first->model;
        const char *null_context = static_cast<const char *>(m->null_context_memory_);
        states[k].assign(null_context, null_context + m->state_size_);
        outs[k].resize(m->state_size_);
        totals[k] = 0.0;
      }
      bool below = false;
      std::string_view rest = targets[i];
      while (!rest.empty()) {
        size_t sp = rest.find(' ');
        word.assign(rest.substr(0, sp));
        rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
        for (size_t k = 0; k < n_lms; ++k) {
          const lm::base::Model *m = lms[k].first->model;
          const float score = m->BaseScore(states[k].data(), m->base_vocab_->Index(word.c_str()), outs[k].data());
          if (bounded && score > 0) return py::none();
          totals[k] += score;
          states[k].swap(outs[k]);
        }
        if (bounded && full && !rest.empty() && future_of(sums[i]) < floor) {
          below = true;
          break;
        }
      }
      if (below) continue;
      const double future = future_of(sums[i]);
      if (!std::isfinite(future)) return py::none();
      futures[i] = future;
      done[i] = 1;
      if (!full) {
        best.push(future);
      } else if (future > best.top()) {
        best.pop();
        best.push(future);
      }
    }
    const double floor = floor_of(best.top());
    py::list out;
    for (size_t i = 0; i < n; ++i)
      if (done[i] && futures[i] >= floor) out.append(py::str(lines[i].data(), lines[i].size()));
    return out;
  }

 private:
  // An entry's scores as tables.py reads them (natural logs, floored at Moses's LOWEST_SCORE):
  // false for anything but plain ASCII decimal numbers one ASCII space or tab apart, and for a
  // count other than scores.size(), which Python then reads itself
  static bool table_scores(std::string_view fields, std::vector<double> &scores) {
    constexpr double LOWEST_SCORE = -100.0;
    size_t k = 0, i = 0;
    while (i < fields.size()) {
      if (fields[i] == ' ' || fields[i] == '\t') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < fields.size() && fields[j] != ' ' && fields[j] != '\t') {
        char c = fields[j];
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return false;
        ++j;
      }
      if (k >= scores.size()) return false;
      // from_chars reads what float() reads, rounded alike (a leading '+' aside)
      const char *b = fields.data() + i + (fields[i] == '+'), *e = fields.data() + j;
      double x;
      auto r = std::from_chars(b, e, x);
      if (r.ec != std::errc() || r.ptr != e) return false;
      double v = x > 0 ? std::log(x) : LOWEST_SCORE;
      scores[k++] = v > LOWEST_SCORE ? v : LOWEST_SCORE;
      i = j;
    }
    return k == scores.size();
  }

  // ------------------------------------------------------------------ stacks
  // Python's dict of hypotheses by recombination key: insertion-ordered, a replaced value keeps
  // its key's place. The index is open addressing over (hash, place in `order`) slots: no
  // allocation per hypothesis, the hash computed once per insertion (with std::unordered_map and
  // cube pruning's std::unordered_set, the dev run took 33-35 s against 30 s)
  struct Stack {
    struct Slot {
      uint64_t hash;
      int32_t place;  // -1: empty
    };
    std::vector<int> order;
    std::vector<Slot> slots;
    size_t used = 0;
    Core *core;
    explicit Stack(Core *c) : slots(16, Slot{0, -1}), core(c) {}

    size_t size() const { return order.size(); }
    void clear() {
      order.clear();
      if (used) std::fill(slots.begin(), slots.end(), Slot{0, -1});
      used = 0;
    }
    // a hypothesis whose key no entry has
    void append(int h) {
      const uint64_t hv = core->hash_of(h);
      place_at(free_slot(hv), hv, h);
    }
    void add(int h) {
      const uint64_t hv = core->hash_of(h);
      const size_t mask = slots.size() - 1;
      size_t i = hv & mask;
      for (; slots[i].place >= 0; i = (i + 1) & mask) {
        if (slots[i].hash == hv && core->same_key(order[slots[i].place], h)) break;
      }
      if (slots[i].place < 0) {
        place_at(i, hv, h);
        return;
      }
      const int at = slots[i].place;
      int old = order[at];
      Hyp &ho = core->hyps_[old];
      Hyp &hn = core->hyps_[h];
      if (hn.score > ho.score) {
        if (core->keep_arcs_) {
          hn.arc_first = ho.arc_first;
          hn.arc_last = ho.arc_last;
          ho.arc_first = ho.arc_last = -1;
          core->add_arc(hn, old);
        }
        order[at] = h;
      } else if (core->keep_arcs_) {
        core->add_arc(ho, h);
      }
    }

   private:
    size_t free_slot(uint64_t hv) const {
      const size_t mask = slots.size() - 1;
      size_t i = hv & mask;
      while (slots[i].place >= 0) i = (i + 1) & mask;
      return i;
    }
    void place_at(size_t i, uint64_t hv, int h) {
      slots[i] = Slot{hv, static_cast<int32_t>(order.size())};
      order.push_back(h);
      if (++used * 2 > slots.size()) {
        std::vector<Slot> old(slots.size() * 2, Slot{0, -1});
        old.swap(slots);
        for (const Slot &s : old)
          if (s.place >= 0) slots[free_slot(s.hash)] = s;
      }
    }
  };

  // The (edge, hypothesis, option) triples cube pruning has queued for one stack: open addressing
  // over 64-bit ids, cleared per stack (as std::unordered_set, without its nodes)
  struct SeenSet {
    static constexpr uint64_t kEmpty = ~uint64_t{0};
    std::vector<uint64_t> slots = std::vector<uint64_t>(1024, kEmpty);
    size_t used = 0;
    static uint64_t mix(uint64_t x) {  // splitmix64's finalizer: the ids' bits are packed fields
      x ^= x >> 30;
      x *= 0xbf58476d1ce4e5b9ULL;
      x ^= x >> 27;
      x *= 0x94d049bb133111ebULL;
      return x ^ (x >> 31);
    }
    void clear() {
      if (used) std::fill(slots.begin(), slots.end(), kEmpty);
      used = 0;
    }
    bool insert(uint64_t id) {  // true when it was not there
      const size_t mask = slots.size() - 1;
      size_t i = mix(id) & mask;
      for (; slots[i] != kEmpty; i = (i + 1) & mask)
        if (slots[i] == id) return false;
      slots[i] = id;
      if (++used * 2 > slots.size()) {
        std::vector<uint64_t> old(slots.size() * 2, kEmpty);
        old.swap(slots);
        const size_t m2 = slots.size() - 1;
        for (uint64_t k : old) {
          if (k == kEmpty) continue;
          size_t j = mix(k) & m2;
          while (slots[j] != kEmpty) j = (j + 1) & m2;
          slots[j] = k;
        }
      }
      return true;
    }
  };

  // the lexicalized reordering's forward scores of `h`'s last option, or none
  const double *forward(const Hyp &h) const {
    if (h.opt < 0) return nullptr;
    const Option &o = opts_[h.opt];
    return o.has_ro ? o.ro + 3 : nullptr;
  }

  void add_arc(Hyp &h, int arc) {
    const int at = static_cast<int>(arcs_.size());
    arcs_.push_back(Arc{arc, -1});
    if (h.arc_last >= 0) {
      arcs_[h.arc_last].next = at;
    } else {
      h.arc_first = at;
    }
    h.arc_last = at;
  }

  size_t hash_of(int h) const {
    const Hyp &x = hyps_[h];
    size_t v = 1469598103934665603ULL;
    auto mix = [&v](uint64_t y) { v = (v ^ y) * 1099511628211ULL; };
    mix(static_cast<uint64_t>(x.cov.base));
    for (uint64_t w : x.cov.bits) mix(w);
    mix(static_cast<uint64_t>(x.last_end));
    for (const Feature &f : features_) {
      if (f.kind == DISTORTION) {
        mix(static_cast<uint64_t>(x.last_end));
      } else if (f.kind == REORDERING) {
        mix(static_cast<uint64_t>(x.last_start) * 131 + static_cast<uint64_t>(x.last_end));
        const double *fwd = forward(x);
        mix(fwd != nullptr);
        if (fwd != nullptr)
          for (int i = 0; i < 3; ++i) {
            const double d = fwd[i];
            uint64_t b;
            double z = d == 0.0 ? 0.0 : d;  // -0.0 == 0.0 as Python compares them
            std::memcpy(&b, &z, 8);
            mix(b);
          }
      } else if (f.kind == AGREEMENT) {
        mix(x.agr);
      } else {
        const NgramModel &m = *f.ngram;
        const char *s = &pool_[x.lm_state + m.offset];
        unsigned char len = static_cast<unsigned char>(s[8 * m.context_words]);
        mix(len);
        for (int i = 0; i < len; ++i) {
          lm::WordIndex w;
          std::memcpy(&w, s + 4 * i, 4);
          mix(w);
        }
      }
    }
    return v;
  }

  bool same_key(int a, int b) const {
    const Hyp &x = hyps_[a];
    const Hyp &y = hyps_[b];
    if (x.cov != y.cov || x.last_end != y.last_end) return false;
    for (const Feature &f : features_) {
      if (f.kind == DISTORTION) {
        continue;  // its state is last_end, compared above
      } else if (f.kind == REORDERING) {
        if (x.last_start != y.last_start) return false;
        const double *fx = forward(x), *fy = forward(y);
        if ((fx != nullptr) != (fy != nullptr)) return false;
        if (fx != nullptr)
          for (int i = 0; i < 3; ++i)
            if (!(fx[i] == fy[i])) return false;
      } else if (f.kind == AGREEMENT) {
        if (x.agr != y.agr) return false;
      } else {
        const NgramModel &m = *f.ngram;
        const char *s = &pool_[x.lm_state + m.offset];
        const char *t = &pool_[y.lm_state + m.offset];
        size_t at = 8 * m.context_words;
        unsigned char ls = static_cast<unsigned char>(s[at]), lt = static_cast<unsigned char>(t[at]);
        if (ls != lt || std::memcmp(s, t, 4 * ls) != 0) return false;
      }
    }
    return true;
  }

  // ------------------------------------------------------------------ input
  // the core's LMs, in order: the k-th LANGUAGE_MODEL feature reads the k-th
  void add_model(py::object kenlm_model) {
    NgramModel m;
    // the Cython object: PyObject_HEAD, then its lm::base::Model pointer
    PyObject *obj = kenlm_model.ptr();
    if (Py_TYPE(obj)->tp_basicsize < static_cast<Py_ssize_t>(sizeof(PyObject) + sizeof(void *)))
      throw std::runtime_error("unexpected kenlm.Model layout");
    std::memcpy(&m.model, reinterpret_cast<char *>(obj) + sizeof(PyObject), sizeof(void *));
    if (m.model == nullptr) throw std::runtime_error("kenlm.Model holds no model");
    int order = py::cast<int>(kenlm_model.attr("order"));
    if (m.model->order_ != order || m.model->state_size_ == 0 || m.model->state_size_ > 256)
      throw std::runtime_error("kenlm.Model layout does not match KenLM's virtual interface");
    m.state_size = m.model->state_size_;
    // lm::ngram::State: WordIndex words[N]; float backoff[N]; unsigned char length
    m.context_words = static_cast<int>((m.state_size - 1) / 8);
    m.end_sentence = m.model->base_vocab_->Index("</s>");
    m.owner = kenlm_model;
    m.offset = block_;
    block_ += m.state_size;
    lms_.push_back(std::move(m));
  }

  void read_features(py::list features) {
    features_.clear();
    int lms = 0;
    agreement_ = false;
    for (py::handle item : features) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      Feature f;
      f.kind = py::cast<int>(t[0]);
      f.weights = py::cast<std::vector<double>>(t[1]);
      f.expensive = py::cast<bool>(t[2]);
      f.bound = py::cast<double>(t[3]);
      if (f.kind < DISTORTION || f.kind > AGREEMENT) throw std::runtime_error("a feature kind the core does not know");
      if (f.kind == LANGUAGE_MODEL) {
        if (lms >= lm_count()) throw std::runtime_error("more LM features than LMs in this core");
        f.ngram = &lms_[lms];  // lms_ is fixed once the core is made
        f.lm = lms++;
      } else if (f.kind == AGREEMENT) {
        if (f.weights.size() != 2) throw std::runtime_error("the pronoun agreement has two weights");
        agreement_ = true;
      }
      features_.push_back(std::move(f));
    }
    // every LM has its feature: a hypothesis's block is whole once its LM features have run
    if (lms != lm_count()) throw std::runtime_error("fewer LM features than LMs in this core");
  }

  // the word's index in each LM (ids_[row + k] for LM k): one lookup per word for all of them
  size_t word_row(PyObject *word) {
    Py_ssize_t size;
    const char *utf8 = PyUnicode_AsUTF8AndSize(word, &size);
    if (utf8 == nullptr) throw py::error_already_set();
    std::string key(utf8, size);
    auto it = vocab_.find(key);
    if (it != vocab_.end()) return it->second;
    const size_t row = ids_.size();
    for (const NgramModel &m : lms_) ids_.push_back(m.model->base_vocab_->Index(key.c_str()));
    vocab_.emplace(std::move(key), row);
    return row;
  }

  // What the search reads of an option, packed once into the option's `native` slot: an option
  // kept across sentences (a phrase's table-limited templates) is read again by every sentence
  // that has its phrase, and the packed bytes spare the attribute reads and the LM vocabulary
  // lookups of its words. The bytes name the core that packed them (the LMs' word indices are its
  // own, LM by LM: word_count indices for each); an option any other core packed is read afresh.
  struct Packed {
    uint64_t core;
    double stateless, future;
    double ro[6];
    int32_t has_ro, word_count;
    int32_t has_agr;
    uint8_t agr[3 * AGREEMENT_STATES];
  };

  void read_options(py::list options) {
    opts_.clear();
    words_.clear();
    opts_.reserve(py::len(options));
    py::str STATELESS("stateless"), WORDS("words"), REORDERING_("reordering"),
        FUTURE("future"), NATIVE("native"), AGREEMENT_("agreement");
    for (py::handle o : options) {
      Option x;
      x.start = x.end = -1;    // from the option's span (read_spans)
      PyObject *got = PyObject_GetAttr(o.ptr(), NATIVE.ptr());
      if (got == nullptr) PyErr_Clear();  // an option without the slot: read, not packed
      const py::object owned = py::reinterpret_steal<py::object>(got);  // released at the loop's end
      if (got != nullptr && PyBytes_Check(got) && unpack(got, x)) {
        opts_.push_back(x);
        continue;
      }
      x.stateless = py::cast<double>(o.attr(STATELESS));
      x.future = py::cast<double>(o.attr(FUTURE));
      x.word_first = static_cast<int>(words_.size());
      if (!lms_.empty()) {
        // LM by LM: LM k's indices of the option's words at word_first + k * word_count
        py::tuple words = o.attr(WORDS);
        const size_t count = words.size(), nlm = lms_.size();
        x.word_count = static_cast<int>(count);
        words_.resize(words_.size() + nlm * count);
        size_t i = 0;
        for (py::handle w : words) {
          const size_t row = word_row(w.ptr());
          for (size_t k = 0; k < nlm; ++k) words_[x.word_first + k * count + i] = ids_[row + k];
          ++i;
        }
      }
      py::object ro = o.attr(REORDERING_);
      if (!ro.is_none()) {
        py::sequence r = ro;
        if (r.size() < 6) throw std::runtime_error("a reordering entry has fewer than 6 scores");
        x.has_ro = true;
        for (int i = 0; i < 6; ++i) x.ro[i] = py::cast<double>(r[i]);
      }
      if (agreement_) read_agreement(o, AGREEMENT_, x);
      if (got != nullptr) o.attr(NATIVE) = pack(x);
      opts_.push_back(x);
    }
  }

  // the option's agreement table (PronounAgreement's annotation): every option must have one
  // when the feature runs, and each of its states must be one
  static void read_agreement(py::handle o, const py::str &name, Option &x) {
    py::object t = o.attr(name);
    if (!PyBytes_Check(t.ptr()) || PyBytes_GET_SIZE(t.ptr()) != 3 * AGREEMENT_STATES)
      throw std::runtime_error("an option without the pronoun agreement's table");
    std::memcpy(x.agr, PyBytes_AS_STRING(t.ptr()), sizeof x.agr);
    for (int i = 0; i < AGREEMENT_STATES; ++i)
      if (x.agr[i] >= AGREEMENT_STATES) throw std::runtime_error("an agreement table names a state it does not have");
    x.has_agr = true;
  }

  py::bytes pack(const Option &x) const {
    Packed p{serial_, x.stateless, x.future, {}, x.has_ro, x.word_count, x.has_agr, {}};
    std::memcpy(p.ro, x.ro, sizeof p.ro);
    std::memcpy(p.agr, x.agr, sizeof p.agr);
    const size_t ids = lms_.size() * static_cast<size_t>(x.word_count);
    std::string out(sizeof p + 4 * ids, '\0');
    std::memcpy(&out[0], &p, sizeof p);
    if (ids > 0) std::memcpy(&out[sizeof p], words_.data() + x.word_first, 4 * ids);
    return py::bytes(out);
  }

  bool unpack(PyObject *bytes, Option &x) {
    const size_t size = static_cast<size_t>(PyBytes_GET_SIZE(bytes));
    if (size < sizeof(Packed)) return false;
    const char *at = PyBytes_AS_STRING(bytes);
    Packed p;
    std::memcpy(&p, at, sizeof p);
    const size_t ids = lms_.size() * static_cast<size_t>(p.word_count);
    if (p.core != serial_ || p.word_count < 0 || size != sizeof p + 4 * ids) return false;
    if (agreement_ && !p.has_agr) return false;  // packed for a search without the agreement: read afresh
    x.stateless = p.stateless;
    x.future = p.future;
    x.has_ro = p.has_ro != 0;
    std::memcpy(x.ro, p.ro, sizeof x.ro);
    x.has_agr = p.has_agr != 0;
    std::memcpy(x.agr, p.agr, sizeof x.agr);
    x.word_first = static_cast<int>(words_.size());
    x.word_count = p.word_count;
    words_.resize(words_.size() + ids);
    if (ids > 0) std::memcpy(words_.data() + x.word_first, at + sizeof p, 4 * ids);
    return true;
  }

  // the options of each span, by start and length (a band: linear in the sentence's length):
  // (start, end, first, count), the options flat[first:first + count], which take the span as
  // theirs (Python passes a phrase's templates, which know no span)
  void read_spans(py::list spans) {
    std::vector<std::array<int, 4>> got;
    got.reserve(py::len(spans));
    max_len_ = 1;
    bool any = false;
    const int total = static_cast<int>(opts_.size());
    for (py::handle item : spans) {
      py::tuple t = py::reinterpret_borrow<py::tuple>(item);
      if (t.size() != 4) throw std::runtime_error("a span is (start, end, first, count)");
      int s = py::cast<int>(t[0]), e = py::cast<int>(t[1]), first = py::cast<int>(t[2]), count = py::cast<int>(t[3]);
      if (s < 0 || e > n_ || s >= e) throw std::runtime_error("option span outside the sentence");
      if (count <= 0) throw std::runtime_error("a span without options");
      if (first < 0 || count > total - first) throw std::runtime_error("a span's options outside the option list");
      if (!any || e - s > max_len_) max_len_ = e - s;
      any = true;
      got.push_back({s, e, first, count});
    }
    span_opts_.assign(static_cast<size_t>(n_) * (max_len_ + 1), {});
    for (auto &[s, e, first, count] : got) {
      std::vector<int> &idx = span_opts_[span_at(s, e)];
      if (!idx.empty()) throw std::runtime_error("a span given twice");
      idx.resize(count);
      for (int k = 0; k < count; ++k) {
        Option &o = opts_[first + k];
        if (o.end >= 0) throw std::runtime_error("an option in two spans");
        o.start = s;
        o.end = e;
        idx[k] = first + k;
      }
    }
  }

  size_t span_at(int s, int e) const { return static_cast<size_t>(s) * (max_len_ + 1) + (e - s); }

  const std::vector<int> &options_of(int s, int e) const {
    static const std::vector<int> none;
    if (e - s > max_len_) return none;
    return span_opts_[span_at(s, e)];
  }

  // ------------------------------------------------------------------ future costs
  // future_costs in cad/decoder/options.py, operation for operation: fc(s, e) is the best
  // estimated score of translating [s, e). Up to EXACT_WORDS words the whole table by Moses's
  // recursion over split points; beyond, the spans of at most `band_` words by the same recursion
  // (the same values) and each suffix [s, n) by its best first span (linear).
  void future_costs(int limit) {
    int n = n_;
    exact_ = n <= EXACT_WORDS || limit < 0;
    band_ = exact_ ? n : std::min(n, std::max(limit, max_len_));
    size_t width = static_cast<size_t>(band_) + 1;
    fc_.assign(static_cast<size_t>(n + 1) * width, NEG_INF);
    auto at = [&](int s, int e) -> double & { return fc_[static_cast<size_t>(s) * width + (e - s)]; };
    for (int s = 0; s < n; ++s)
      for (int e = s + 1; e <= std::min(n, s + max_len_); ++e) {
        const std::vector<int> &o = options_of(s, e);
        if (!o.empty() && e - s <= band_) at(s, e) = std::max(at(s, e), opts_[o[0]].future);
      }
    for (int length = 2; length <= band_; ++length)
      for (int s = 0; s + length <= n; ++s) {
        int e = s + length;
        double best = at(s, e);
        for (int k = s + 1; k < e; ++k) {
          double v = at(s, k) + at(k, e);
          if (v > best) best = v;
        }
        at(s, e) = best;
      }
    suffix_.assign(n + 1, 0.0);
    if (exact_) {
      for (int s = 0; s < n; ++s) suffix_[s] = at(s, n);
      return;
    }
    for (int s = n - 1; s >= 0; --s) {
      double best = NEG_INF;
      for (int e = s + 1; e <= std::min(n, s + band_); ++e) {
        double v = at(s, e) + suffix_[e];
        if (v > best) best = v;
      }
      suffix_[s] = best;
    }
  }

  double fc(int s, int e) const {
    if (e == n_) return suffix_[s];
    if (e - s > band_) throw std::logic_error("future cost of a gap wider than the band");
    return fc_[static_cast<size_t>(s) * (band_ + 1) + (e - s)];
  }

  // ------------------------------------------------------------------ search pieces
  // a block of LM states, one for each LM
  int new_state() {
    size_t at = pool_.size();
    pool_.resize(at + block_);
    return static_cast<int>(at);
  }

  // The future cost of the gaps of `cov`, left to right (the Python search's additions in its
  // order), found by scanning the coverage's words: quicker than a cache of it by coverage
  double fc_of(const Coverage &cov) const {
    double v = 0.0;
    const int last = covered_end(cov);
    int i = cov.base;
    while (i < n_) {
      if (i >= last) {
        v += fc(i, n_);
        break;
      }
      const int j = next_with(cov, i, true);
      v += fc(i, j);
      i = next_with(cov, j, false);
    }
    return v;
  }

  const std::vector<std::pair<int, int>> &spans_of(const Coverage &cov, int limit) {
    auto it = spans_cache_.find(cov);
    if (it != spans_cache_.end()) return it->second;
    std::vector<std::pair<int, int>> out;
    int gap = cov.base;
    // under a limit, a phrase away from the gap must end within it: none starts at gap + limit
    int stop = limit >= 0 ? std::min(n_, std::max(gap + 1, gap + limit)) : n_;
    for (int s = gap; s < stop; ++s) {
      if (covered(cov, s)) continue;
      for (int e = s + 1; e <= std::min(n_, s + max_len_); ++e) {
        if (covered(cov, e - 1)) break;
        if (options_of(s, e).empty()) continue;
        if (s != gap && limit >= 0 && e - gap > limit) continue;
        out.emplace_back(s, e);
      }
    }
    return spans_cache_.emplace(cov, std::move(out)).first->second;
  }

  // Decoder._expand: -1 when the result falls below `threshold`
  int expand(int hi, int oi, double threshold) {
    const Option &o = opts_[oi];
    const Hyp &h = hyps_[hi];  // hyps_ grows only at the end, after the last use of h
    Hyp nh;
    nh.prev = hi;
    nh.opt = oi;
    nh.cov = h.cov;
    cover(nh.cov, o.start, o.end);
    double future = fc_of(nh.cov);
    bool complete = nh.cov.base == n_;
    double score = h.score + o.stateless;
    int lm_state = -1;
    for (const Feature &f : features_) {
      if (f.expensive && score + future + f.bound < threshold) {
        if (lm_state >= 0) pool_.resize(lm_state);
        return -1;
      }
      if (f.kind == DISTORTION) {
        score += f.weights[0] * static_cast<double>(-std::abs(h.last_end - o.start));
      } else if (f.kind == REORDERING) {
        int orient = o.start == h.last_end ? MONO : o.end == h.last_start ? SWAP : OTHER;
        double v = 0.0;
        if (o.has_ro) v = f.weights[orient] * o.ro[orient];
        const double *fwd = forward(h);
        if (fwd != nullptr) v += f.weights[3 + orient] * fwd[orient];
        score += v;
      } else if (f.kind == AGREEMENT) {
        // PronounAgreement.evaluate: the agreeing predicates the option holds from this state, and
        // minus the disagreeing ones, each by its weight
        const int agree = o.agr[AGREEMENT_STATES + h.agr], disagree = o.agr[2 * AGREEMENT_STATES + h.agr];
        score += f.weights[0] * static_cast<double>(agree) + f.weights[1] * static_cast<double>(-disagree);
        nh.agr = o.agr[h.agr];
      } else {
        // the new block, made at the first LM feature; each LM writes its own state in it
        if (lm_state < 0) lm_state = new_state();
        const int off = static_cast<int>(f.ngram->offset);
        double lm = lm_score(*f.ngram, f.lm, h.lm_state + off, o, complete, lm_state + off);
        score += f.weights[0] * lm;
      }
    }
    if (score + future < threshold) {
      if (lm_state >= 0) pool_.resize(lm_state);
      return -1;
    }
    nh.lm_state = lm_state >= 0 ? lm_state : h.lm_state;
    nh.ncov = h.ncov + o.end - o.start;
    nh.score = score;
    nh.total = score + future;
    nh.last_start = o.start;
    nh.last_end = o.end;
    hyps_.push_back(std::move(nh));
    return static_cast<int>(hyps_.size() - 1);
  }

  // KenLMFeature._score of LM `k` (`m`): ln-probability of the option's words (and </s> when complete)
  // after the state at `in`, whose next state goes to `out`
  double lm_score(const NgramModel &m, int k, int in, const Option &o, bool complete, int out) {
    const lm::base::Model *model = m.model;
    // two state buffers on the stack (add_model caps StateSize at 256): no allocation per expansion
    alignas(8) char buf[2][256];
    char *a = buf[0], *b = buf[1];
    std::memcpy(a, &pool_[in], m.state_size);
    double total = 0.0;
    const lm::WordIndex *w = words_.data() + o.word_first + static_cast<size_t>(k) * o.word_count;
    for (const lm::WordIndex *end = w + o.word_count; w != end; ++w) {
      total += static_cast<double>(model->BaseScore(a, *w, b));
      std::swap(a, b);
    }
    double lm = total * ln10_;
    if (complete) {
      double end_total = 0.0;
      end_total += static_cast<double>(model->BaseScore(a, m.end_sentence, b));
      std::swap(a, b);
      lm += end_total * ln10_;
    }
    std::memcpy(&pool_[out], a, m.state_size);
    return lm;
  }

  std::vector<int> prune(const Stack &stack, int size, double log_beam) const {
    std::vector<int> hyps(stack.order);
    std::stable_sort(hyps.begin(), hyps.end(), [this](int a, int b) { return hyps_[a].total > hyps_[b].total; });
    if (hyps.empty()) return hyps;
    double limit = hyps_[hyps[0]].total + log_beam;
    std::vector<int> out;
    for (int h : hyps)
      if (hyps_[h].total >= limit) out.push_back(h);
    if (size > 0 && static_cast<int>(out.size()) > size) out.resize(size);
    return out;
  }

  void normal(std::vector<Stack> &stacks, int limit, int size, double log_beam) {
    std::vector<double> best(n_ + 1, NEG_INF), floor(n_ + 1, NEG_INF);
    for (int k = 0; k < n_; ++k) {
      collect(stacks, k, nullptr);
      std::vector<int> hyps = prune(stacks[k], size, log_beam);
      stacks[k].clear();
      for (int hi : hyps) {
        Coverage cov = hyps_[hi].cov;
        std::vector<std::pair<int, int>> spans = spans_of(cov, limit);
        for (auto [s, e] : spans) {
          if (limit >= 0 && std::abs(hyps_[hi].last_end - s) > limit) continue;
          int k2 = k + e - s;
          const std::vector<int> &opts = options_of(s, e);
          for (int oi : opts) {
            int nh = expand(hi, oi, std::max(best[k2] + log_beam, floor[k2]));
            if (nh < 0) continue;
            if (hyps_[nh].total > best[k2]) best[k2] = hyps_[nh].total;
            stacks[k2].add(nh);
            if (size > 0 && static_cast<int>(stacks[k2].size()) >= 2 * size) lazy_prune(stacks[k2], size, floor[k2]);
          }
        }
      }
    }
  }

  void lazy_prune(Stack &stack, int size, double &floor) {
    std::vector<int> kept(stack.order);
    std::stable_sort(kept.begin(), kept.end(), [this](int a, int b) { return hyps_[a].total > hyps_[b].total; });
    if (static_cast<int>(kept.size()) > size) kept.resize(size);
    floor = hyps_[kept.back()].total;
    stack.clear();
    // {key(x): x for x in kept}: distinct keys already, so plain insertion
    for (int h : kept) stack.append(h);
  }

  struct Edge {
    std::vector<int> hyps;
    const std::vector<int> *opts;
  };

  // A queued candidate: its score and its place in the stack's queue order, which breaks ties as
  // the Python search's counter does; what it is lies in `queued_` at that place. Sixteen bytes,
  // so that the heap moves less than the whole record
  struct Cand {
    double neg_total;
    uint32_t seq;
    bool operator>(const Cand &o) const {
      if (neg_total != o.neg_total) return neg_total > o.neg_total;
      return seq > o.seq;
    }
  };
  struct Queued {
    int edge, i, j, hyp;
  };

  // A 4-ary min-heap of candidates: their order is total (no two share a place), so it pops
  // them in the order any priority queue would, with fewer levels than a binary heap, and a pop
  // followed by a push is one replacement of the top
  struct CandHeap {
    std::vector<Cand> v;
    static bool before(const Cand &a, const Cand &b) {
      return a.neg_total < b.neg_total || (a.neg_total == b.neg_total && a.seq < b.seq);
    }
    void clear() { v.clear(); }
    bool empty() const { return v.empty(); }
    const Cand &top() const { return v[0]; }
    void heapify() {
      for (size_t i = v.size() / 4 + 1; i-- > 0;) sift_down(i);
    }
    void push(Cand c) {
      size_t i = v.size();
      v.push_back(c);
      while (i > 0) {
        const size_t parent = (i - 1) / 4;
        if (!before(c, v[parent])) break;
        v[i] = v[parent];
        i = parent;
      }
      v[i] = c;
    }
    void replace_top(Cand c) {
      v[0] = c;
      sift_down(0);
    }
    void pop() {
      v[0] = v.back();
      v.pop_back();
      if (!v.empty()) sift_down(0);
    }

   private:
    void sift_down(size_t i) {
      const size_t n = v.size();
      const Cand c = v[i];
      for (;;) {
        const size_t first = 4 * i + 1;
        if (first >= n) break;
        size_t best = first;
        const size_t last = std::min(first + 4, n);
        for (size_t k = first + 1; k < last; ++k)
          if (before(v[k], v[best])) best = k;
        if (!before(v[best], c)) break;
        v[i] = v[best];
        i = best;
      }
      v[i] = c;
    }
  };

  void cube_pruning(std::vector<Stack> &stacks, int pop_limit, int limit, int size, double log_beam) {
    std::vector<std::vector<Edge>> edges(n_ + 1);
    std::vector<Queued> &queued = queued_;
    for (int k = 0; k <= n_; ++k) {
      collect(stacks, k, &edges);
      if (k > 0) {
        CandHeap &heap = heap_;
        heap.clear();
        queued.clear();
        seen_.clear();
        SeenSet &seen = seen_;
        auto id = [](size_t ei, size_t i, size_t j) { return (uint64_t(ei) << 40) ^ (uint64_t(i) << 20) ^ uint64_t(j); };
        std::vector<Edge> &es = edges[k];
        for (size_t ei = 0; ei < es.size(); ++ei) {
          int nh = expand(es[ei].hyps[0], (*es[ei].opts)[0], NEG_INF);
          heap.v.push_back(Cand{-hyps_[nh].total, static_cast<uint32_t>(queued.size())});
          queued.push_back(Queued{static_cast<int>(ei), 0, 0, nh});
          seen.insert(id(ei, 0, 0));
        }
        heap.heapify();
        int pops = 0;
        while (!heap.empty() && pops < pop_limit) {
          const Queued c = queued[heap.top().seq];
          ++pops;
          stacks[k].add(c.hyp);
          const Edge &edge = es[c.edge];
          const int next[2][2] = {{c.i + 1, c.j}, {c.i, c.j + 1}};
          Cand made[2];
          int m = 0;
          for (auto &nx : next) {
            int ni = nx[0], nj = nx[1];
            if (ni < static_cast<int>(edge.hyps.size()) && nj < static_cast<int>(edge.opts->size()) &&
                seen.insert(id(c.edge, ni, nj))) {
              int h2 = expand(edge.hyps[ni], (*edge.opts)[nj], NEG_INF);
              made[m++] = Cand{-hyps_[h2].total, static_cast<uint32_t>(queued.size())};
              queued.push_back(Queued{c.edge, ni, nj, h2});
            }
          }
          // the popped candidate's place goes to the first one made
          if (m > 0) {
            heap.replace_top(made[0]);
          } else {
            heap.pop();
          }
          if (m > 1) heap.push(made[1]);
        }
        edges[k].clear();
      }
      if (k == n_) break;
      std::vector<int> pruned = prune(stacks[k], size, log_beam);
      std::vector<Coverage> covs;
      std::unordered_map<Coverage, std::vector<int>, CovHash> by_cov;
      for (int h : pruned) {
        auto it = by_cov.find(hyps_[h].cov);
        if (it == by_cov.end()) {
          covs.push_back(hyps_[h].cov);
          by_cov.emplace(hyps_[h].cov, std::vector<int>{h});
        } else {
          it->second.push_back(h);
        }
      }
      stacks[k].clear();
      for (const Coverage &cov : covs) {
        std::vector<int> &hyps = by_cov[cov];
        std::stable_sort(hyps.begin(), hyps.end(), [this](int a, int b) { return hyps_[a].score > hyps_[b].score; });
        std::vector<std::pair<int, int>> spans = spans_of(cov, limit);
        for (auto [s, e] : spans) {
          Edge edge;
          edge.opts = &options_of(s, e);
          if (limit < 0) {
            edge.hyps = hyps;
          } else {
            for (int h : hyps)
              if (std::abs(hyps_[h].last_end - s) <= limit) edge.hyps.push_back(h);
            if (edge.hyps.empty()) continue;
            // Moses's BackwardsEdge order: score plus the distortion cost of the jump
            std::vector<std::pair<double, int>> keyed;
            keyed.reserve(edge.hyps.size());
            for (int h : edge.hyps) {
              double jump = 0.0;
              bool first = true;
              for (const Feature &f : features_)
                if (f.kind == DISTORTION) {
                  double j = f.weights[0] * static_cast<double>(std::abs(hyps_[h].last_end - s));
                  jump = first ? j : jump + j;
                  first = false;
                }
              keyed.emplace_back(jump_key(jump, hyps_[h].score), h);
            }
            std::stable_sort(keyed.begin(), keyed.end(),
                             [](const auto &a, const auto &b) { return a.first < b.first; });
            for (size_t i = 0; i < keyed.size(); ++i) edge.hyps[i] = keyed[i].second;
          }
          edges[k + e - s].push_back(std::move(edge));
        }
      }
    }
  }

  // ------------------------------------------------------------------ memory
  size_t collect_at_ = size_t(1) << 20;   // hypotheses made before the first collection
  size_t collections_ = 0;

  // Drop the hypotheses nothing refers to any more (pruned away, and no stack from `from` on, no
  // pending edge, ancestor chain or recombination arc reaches them) and renumber the others in
  // their order, with their LM states: a long sentence's search holds a few stacks' worth of
  // hypotheses instead of every one it made. Only indices change, so the search is the same.
  void collect(std::vector<Stack> &stacks, int from, std::vector<std::vector<Edge>> *edges) {
    if (hyps_.size() < next_collect_) return;
    std::vector<char> live(hyps_.size(), 0);
    std::vector<int> todo;
    auto mark = [&](int root) {
      todo.push_back(root);
      while (!todo.empty()) {
        int x = todo.back();
        todo.pop_back();
        for (; x >= 0 && !live[x]; x = hyps_[x].prev) {
          live[x] = 1;
          for (int a = hyps_[x].arc_first; a >= 0; a = arcs_[a].next) todo.push_back(arcs_[a].hyp);
        }
      }
    };
    for (int k = from; k <= n_; ++k)
      for (int h : stacks[k].order) mark(h);
    if (edges != nullptr)
      for (int k = from; k <= n_; ++k)
        for (const Edge &e : (*edges)[k])
          for (int h : e.hyps) mark(h);
    std::vector<int> remap(hyps_.size(), -1);
    std::vector<char> pool;
    std::unordered_map<int, int> states;
    int m = 0;
    for (size_t i = 0; i < hyps_.size(); ++i) {
      if (!live[i]) continue;
      remap[i] = m;
      Hyp &h = hyps_[i];
      if (h.lm_state >= 0) {
        auto it = states.find(h.lm_state);
        if (it == states.end()) {
          int at = static_cast<int>(pool.size());
          pool.insert(pool.end(), pool_.begin() + h.lm_state, pool_.begin() + h.lm_state + block_);
          it = states.emplace(h.lm_state, at).first;
        }
        h.lm_state = it->second;
      }
      if (static_cast<size_t>(m) != i) hyps_[m] = std::move(h);
      ++m;
    }
    hyps_.resize(m);
    hyps_.shrink_to_fit();
    std::vector<Arc> arcs;
    arcs.swap(arcs_);
    for (Hyp &h : hyps_) {
      if (h.prev >= 0) h.prev = remap[h.prev];
      const int first = h.arc_first;
      h.arc_first = h.arc_last = -1;
      for (int a = first; a >= 0; a = arcs[a].next) add_arc(h, remap[arcs[a].hyp]);
    }
    pool_.swap(pool);
    for (int k = from; k <= n_; ++k) {
      Stack &st = stacks[k];
      std::vector<int> order;
      order.swap(st.order);
      st.clear();
      for (int h : order) st.append(remap[h]);
    }
    if (edges != nullptr)
      for (int k = from; k <= n_; ++k)
        for (Edge &e : (*edges)[k])
          for (int &h : e.hyps) h = remap[h];
    // caches by coverage: recomputed as needed, with the same values
    spans_cache_.clear();
    ++collections_;
    next_collect_ = std::max(collect_at_, 2 * hyps_.size());
  }

  // Python: jump(x.last_end, s) - x.score with one jump feature; sum(...) - score with several
  // (sum starts from the integer 0, which adds nothing to a float)
  static double jump_key(double jump, double score) { return jump - score; }

  struct CovHash {
    size_t operator()(const Coverage &c) const {
      size_t v = 1469598103934665603ULL;
      v = (v ^ static_cast<uint64_t>(c.base)) * 1099511628211ULL;
      for (uint64_t w : c.bits) v = (v ^ w) * 1099511628211ULL;
      return v;
    }
  };

  // ------------------------------------------------------------------ output
  std::vector<int> chain(int h) const {
    std::vector<int> out;
    while (hyps_[h].prev >= 0) {
      out.push_back(h);
      h = hyps_[h].prev;
    }
    std::reverse(out.begin(), out.end());
    return out;
  }

  std::vector<int> chain_options(const std::vector<int> &c) const {
    std::vector<int> out;
    out.reserve(c.size());
    for (int h : c) out.push_back(hyps_[h].opt);
    return out;
  }

  struct Path {
    double neg;
    uint64_t counter;
    std::vector<int> chain;
    int dev_limit;
  };
  struct PathGreater {
    bool operator()(const Path &a, const Path &b) const {
      if (a.neg != b.neg) return a.neg > b.neg;
      return a.counter > b.counter;
    }
  };

  // Decoder._nbest's trellis paths, in the order Python pops them, up to its budget; Python
  // keeps the first n (distinct ones when asked), so stopping early there changes nothing
  py::list nbest_chains(const std::vector<int> &finals, int n, bool distinct) {
    uint64_t counter = 0;
    std::priority_queue<Path, std::vector<Path>, PathGreater> heap;
    for (int h : finals) {
      std::vector<int> c = chain(h);
      int len = static_cast<int>(c.size());
      heap.push(Path{-hyps_[h].score, counter++, std::move(c), len});
    }
    py::list out;
    long budget = distinct ? 20L * n : n;
    long popped = 0;
    while (!heap.empty() && popped < budget) {
      Path p = heap.top();
      heap.pop();
      ++popped;
      out.append(py::cast(chain_options(p.chain)));
      for (int i = p.dev_limit - 1; i >= 0; --i) {
        const Hyp &node = hyps_[p.chain[i]];
        for (int a = node.arc_first; a >= 0; a = arcs_[a].next) {
          const int arc = arcs_[a].hyp;
          std::vector<int> ac = chain(arc);
          int dl = static_cast<int>(ac.size()) - 1;
          ac.insert(ac.end(), p.chain.begin() + i + 1, p.chain.end());
          heap.push(Path{p.neg + node.score - hyps_[arc].score, counter++, std::move(ac), dl});
        }
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ members
  std::vector<NgramModel> lms_;
  size_t block_ = 0;  // bytes of a hypothesis's block of LM states
  std::atomic<bool> busy_{false};
  double ln10_;
  std::unordered_map<std::string, size_t> vocab_;  // a word's row in ids_
  std::vector<lm::WordIndex> ids_;                 // by row: the word's index in each LM

  int n_ = 0;
  int max_len_ = 1;
  bool keep_arcs_ = true;
  bool exact_ = true;
  int band_ = 0;
  std::vector<double> fc_;      // fc(s, e) for spans of at most band_ words, by start and length
  std::vector<double> suffix_;  // fc(s, n)
  size_t next_collect_ = 0;
  std::vector<Feature> features_;
  bool agreement_ = false;  // a PronounAgreement among the features: options carry its table
  std::vector<Option> opts_;
  uint64_t serial_ = 0;  // this core's number in the process: packed options name it
  std::vector<lm::WordIndex> words_;  // the options' LM words, one after another
  std::vector<std::vector<int>> span_opts_;
  std::vector<Hyp> hyps_;
  struct Arc {
    int hyp, next;
  };
  std::vector<Arc> arcs_;  // the hypotheses' arc lists
  std::vector<char> pool_;
  SeenSet seen_;
  std::vector<Queued> queued_;
  CandHeap heap_;
  std::unordered_map<Coverage, std::vector<std::pair<int, int>>, CovHash> spans_cache_;
};

}  // namespace

PYBIND11_MODULE(_core, m) {
  m.doc() = "cad's compiled search core (cube pruning and normal stack search with native LMs, distortion, "
            "lexicalized reordering and pronoun agreement)";
  m.attr("WINDOW") = WINDOW;
  m.attr("EXACT_WORDS") = EXACT_WORDS;
  m.attr("AGREEMENT_STATES") = AGREEMENT_STATES;
  py::class_<Core>(m, "Core")
      .def(py::init<py::list, double>(), py::arg("kenlm_models"), py::arg("ln10"))
      .def_property_readonly("has_lm", &Core::has_lm)
      .def_property_readonly("lm_count", &Core::lm_count)
      .def("set_collect_at", &Core::set_collect_at, py::arg("n"))
      .def_property_readonly("collections", &Core::collections)
      .def("probe", &Core::probe, py::arg("word"), py::arg("lm") = 0)
      .def_static("fits", &Core::fits, py::arg("n"), py::arg("limit"), py::arg("max_len"))
      .def("search", &Core::search, py::arg("n"), py::arg("options"), py::arg("spans"), py::arg("features"), py::arg("algorithm"), py::arg("stack"), py::arg("log_beam"), py::arg("limit"),
           py::arg("pop_limit"), py::arg("nbest"), py::arg("distinct"))
      .def("limit_candidates", &Core::limit_candidates, py::arg("text"), py::arg("n_scores"), py::arg("terms"),
           py::arg("lm_terms"), py::arg("limit"), py::arg("margin"));
}
