// MERT's exact line search (cad/tune/mert.py line_search) in C++: the Python version spends the
// tuning time in its per-sentence envelope loop. Same algorithm, same floating-point operations in
// the same order, so both give the same step and BLEU (tests/test_mert.py compares them).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <utility>
#include <vector>

namespace py = pybind11;
using Doubles = py::array_t<double, py::array::c_style | py::array::forcecast>;
using Offsets = py::array_t<int64_t, py::array::c_style | py::array::forcecast>;

namespace {

constexpr int kStats = 10;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Same as mert.bleu: math.log / math.exp are libm's, as std::log / std::exp; the four log terms
// are summed left to right from 0, as Python's sum() does.
double bleu(const double* s) {
  for (int k = 0; k < 8; ++k)
    if (s[k] == 0) return 0.0;
  double log_p = 0.0;
  for (int k = 0; k < 4; ++k) log_p += std::log(s[k] / s[k + 4]);
  log_p /= 4;
  double hyp = s[8], ref = s[9];
  double bp = hyp > ref ? 1.0 : std::exp(1 - ref / std::max(hyp, 1.0));
  return bp * std::exp(log_p);
}

struct Line {
  double b, a;  // slope, intercept
  int64_t id;
  double start;
};

// Upper envelope of one sentence's lines (mert._sentence_envelope + mert._envelope).
void envelope(const double* a, const double* b, int64_t lo, int64_t hi, std::vector<int64_t>& order,
              std::vector<Line>& hull) {
  order.resize(hi - lo);
  std::iota(order.begin(), order.end(), lo);
  // numpy.lexsort((a, b)) is stable: by slope, then intercept, then position
  std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) {
    if (b[x] != b[y]) return b[x] < b[y];
    return a[x] < a[y];
  });
  hull.clear();
  for (size_t i = 0; i < order.size(); ++i) {
    // only the last (highest intercept) of each slope can be on the envelope
    if (i + 1 < order.size() && b[order[i + 1]] == b[order[i]]) continue;
    int64_t j = order[i];
    double bj = b[j], aj = a[j];
    while (!hull.empty()) {
      const Line& h = hull.back();
      double x = (h.a - aj) / (bj - h.b);
      if (x <= h.start)
        hull.pop_back();
      else
        break;
    }
    double start = hull.empty() ? -kInf : (hull.back().a - aj) / (bj - hull.back().b);
    hull.push_back({bj, aj, j, start});
  }
}

std::pair<double, double> line_search(Doubles a_in, Doubles b_in, Doubles stats_in, Offsets off_in) {
  auto a = a_in.unchecked<1>();
  auto b = b_in.unchecked<1>();
  auto st = stats_in.unchecked<2>();
  auto off = off_in.unchecked<1>();
  const int64_t n = a.shape(0);
  if (b.shape(0) != n || st.shape(0) != n || st.shape(1) != kStats)
    throw std::invalid_argument("line_search: a, b and stats (n x 10) must have the same rows");
  const int64_t sentences = off.shape(0) - 1;
  if (sentences < 0 || off(0) != 0 || off(sentences) != n)
    throw std::invalid_argument("line_search: offsets must run from 0 to the number of candidates");
  for (int64_t k = 0; k < sentences; ++k)
    if (off(k + 1) <= off(k)) throw std::invalid_argument("line_search: a sentence without candidates");
  const double* pa = a.data(0);
  const double* pb = b.data(0);
  const double* ps = st.data(0, 0);

  double best_gamma = 0.0, best_bleu = -1.0;
  {
    py::gil_scoped_release release;
    std::vector<double> total(kStats, 0.0);
    std::vector<double> gammas;
    std::vector<double> deltas;  // kStats per event
    std::vector<int64_t> order;
    std::vector<Line> hull;
    for (int64_t k = 0; k < sentences; ++k) {
      envelope(pa, pb, off(k), off(k + 1), order, hull);
      for (int q = 0; q < kStats; ++q) total[q] += ps[hull[0].id * kStats + q];
      for (size_t h = 1; h < hull.size(); ++h) {
        gammas.push_back(hull[h].start);
        for (int q = 0; q < kStats; ++q)
          deltas.push_back(ps[hull[h].id * kStats + q] - ps[hull[h - 1].id * kStats + q]);
      }
    }
    std::vector<int64_t> ev(gammas.size());
    std::iota(ev.begin(), ev.end(), 0);
    std::stable_sort(ev.begin(), ev.end(), [&](int64_t x, int64_t y) { return gammas[x] < gammas[y]; });
    std::vector<double> cur = total;
    double prev_g = -kInf;
    size_t i = 0;
    while (true) {
      double nxt = i < ev.size() ? gammas[ev[i]] : kInf;
      double point;
      if (prev_g == -kInf && nxt == kInf)
        point = 0.0;
      else if (prev_g == -kInf)
        point = nxt - 1.0;
      else if (nxt == kInf)
        point = prev_g + 1.0;
      else
        point = (prev_g + nxt) / 2;
      double bl = bleu(cur.data());
      // on ties, the interval closest to the current weights
      if (bl > best_bleu + 1e-12 || (std::abs(bl - best_bleu) <= 1e-12 && std::abs(point) < std::abs(best_gamma))) {
        best_bleu = bl;
        best_gamma = point;
      }
      if (i >= ev.size()) break;
      double g = gammas[ev[i]];
      while (i < ev.size() && gammas[ev[i]] == g) {
        const double* d = &deltas[ev[i] * kStats];
        for (int q = 0; q < kStats; ++q) cur[q] += d[q];
        ++i;
      }
      prev_g = g;
    }
  }
  return {best_gamma, best_bleu};
}

}  // namespace

PYBIND11_MODULE(_mert, m) {
  m.doc() = "MERT's exact line search over concatenated n-best pools (see cad/tune/mert.py)";
  m.def("line_search", &line_search, py::arg("a"), py::arg("b"), py::arg("stats"), py::arg("offsets"),
        "(best step, its BLEU) for model scores a + step * b of every candidate; sentences by offsets");
}
