// Tree kernels for seed 002 (ranking translations against a reference): the Subset Tree Kernel
// (Collins & Duffy 2001, as SVM-light-TK's SST computes it) and the Partial Tree Kernel (Moschitti
// 2006, "Efficient convolution kernels for dependency and constituent syntactic trees", ECML),
// over trees cad/eval/rank/kernels.py encoded once (label ids in pre-order, children as CSR, a
// production id per internal node), so that a Gram matrix costs no Python per pair.
//
// Both kernels are K(T1,T2) = sum over node pairs of Δ(n1,n2). Only pairs that can give Δ > 0 are
// visited: each tree keeps its nodes sorted by label (PTK) and by production (STK), and two sorted
// lists are merged. Δ is memoised in a dense |N1|×|N2| table that lives across pairs (a generation
// stamp invalidates it, so nothing is cleared or allocated per pair once it has grown).
//
// STK (Collins & Duffy 2001; SVM-light-TK's Delta_SST_ST with σ = 1):
//   Δ(n1,n2) = 0                         if the productions differ (label + ordered children labels)
//            = λ                         if both are pre-terminals (all children leaves)
//            = λ ∏_j (1 + Δ(c_j(n1), c_j(n2)))   otherwise.
// Leaves (words) are no nodes of their own here: they only appear in their parent's production.
//
// PTK (Moschitti 2006, Sect. 3, and the recursion SVM-light-TK's Delta_PT/Delta_SK and KeLP's
// PartialTreeKernel compute):
//   Δ(n1,n2) = 0                                                if the labels differ
//            = μ (λ² + Σ_{p=1}^{min(|c1|,|c2|)} Δ_p(c1, c2))    otherwise,
// so a pair with a leaf in it gives μλ². Δ_p is the paper's DPS recursion over child sequences:
//   Δ_p(s1 a, s2 b) = Δ(a,b) Σ_{i≤|s1|} Σ_{r≤|s2|} λ^{|s1|−i + |s2|−r} Δ_{p−1}(s1[1:i], s2[1:r]),
// i.e. over every pair of increasing child index sequences I, J of length p,
//   λ^{gaps(I) + gaps(J)} ∏_k Δ(c1[I_k], c2[J_k]),   gaps(I) = I_p − I_1 + 1 − p
// (λ per child skipped inside the span; adjacent children carry no λ of their own, the λ² is the
// term of n1,n2 taken without children). That is the convention of SVM-light-TK and KeLP.
// The paper's D_p table (D_p(k,l) = Δ_{p−1}(k,l) + λD_p(k,l−1) + λD_p(k−1,l) − λ²D_p(k−1,l−1)) is
// computed here in its separable form, a running row sum then a column sum, which gives the same
// numbers without the subtraction.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

using IntArray = py::array_t<int32_t, py::array::c_style | py::array::forcecast>;

// One tree, as kernels.py encodes it. Node 0 is the root; children come after their parent.
struct Encoded {
  std::vector<int32_t> label, prod, ptr, kids;
  std::vector<uint8_t> preterminal;
  std::vector<int32_t> by_label;  // every node, sorted by (label, index)
  std::vector<int32_t> by_prod;   // internal nodes, sorted by (production, index)

  Encoded(const IntArray& labels, const IntArray& child_ptr, const IntArray& child_idx,
          const IntArray& productions) {
    const int64_t n = labels.size();
    if (n < 1) throw std::invalid_argument("an encoded tree needs at least one node");
    if (child_ptr.size() != n + 1 || productions.size() != n)
      throw std::invalid_argument("child_ptr must have n+1 entries and productions n");
    label.assign(labels.data(), labels.data() + n);
    prod.assign(productions.data(), productions.data() + n);
    ptr.assign(child_ptr.data(), child_ptr.data() + n + 1);
    kids.assign(child_idx.data(), child_idx.data() + child_idx.size());
    validate();
    index();
  }

  int size() const { return static_cast<int>(label.size()); }
  int nkids(int v) const { return ptr[v + 1] - ptr[v]; }
  int kid(int v, int j) const { return kids[ptr[v] + j]; }
  bool leaf(int v) const { return ptr[v + 1] == ptr[v]; }

 private:
  // The recursions index children blindly, so a bad encoding must be refused here, not crash later.
  void validate() const {
    const int n = size();
    if (ptr[0] != 0 || ptr[n] != static_cast<int64_t>(kids.size()))
      throw std::invalid_argument("child_ptr must start at 0 and end at len(child_idx)");
    for (int v = 0; v < n; ++v) {
      if (ptr[v + 1] < ptr[v]) throw std::invalid_argument("child_ptr must not decrease");
      for (int j = ptr[v]; j < ptr[v + 1]; ++j)
        if (kids[j] <= v || kids[j] >= n)  // pre-order: no cycles, so the recursions end
          throw std::invalid_argument("a child must come after its parent (pre-order)");
      if ((prod[v] < 0) != leaf(v))
        throw std::invalid_argument("productions must be >= 0 exactly for internal nodes");
    }
  }

  void index() {
    const int n = size();
    preterminal.assign(n, 0);
    for (int v = 0; v < n; ++v) {
      bool all_leaves = !leaf(v);
      for (int j = 0; j < nkids(v) && all_leaves; ++j) all_leaves = leaf(kid(v, j));
      preterminal[v] = all_leaves;
    }
    for (int v = 0; v < n; ++v) {
      by_label.push_back(v);
      if (!leaf(v)) by_prod.push_back(v);
    }
    auto on = [](const std::vector<int32_t>& key) {
      return [&key](int32_t x, int32_t y) { return key[x] != key[y] ? key[x] < key[y] : x < y; };
    };
    std::sort(by_label.begin(), by_label.end(), on(label));
    std::sort(by_prod.begin(), by_prod.end(), on(prod));
  }
};

// Δ for the node pairs of one tree pair; entries from earlier pairs are stale by their stamp.
class Memo {
 public:
  void start(int rows, int cols) {
    const size_t need = static_cast<size_t>(rows) * cols;
    if (need > value_.size()) {
      value_.resize(need);
      stamp_.assign(need, 0);
    }
    if (++gen_ == 0) {  // wrapped: old stamps could match again
      std::fill(stamp_.begin(), stamp_.end(), 0);
      gen_ = 1;
    }
    cols_ = cols;
  }
  bool find(int i, int j, double* out) const {
    const size_t k = static_cast<size_t>(i) * cols_ + j;
    if (stamp_[k] != gen_) return false;
    *out = value_[k];
    return true;
  }
  double put(int i, int j, double v) {
    const size_t k = static_cast<size_t>(i) * cols_ + j;
    stamp_[k] = gen_;
    return value_[k] = v;
  }
  double get(int i, int j) const { return value_[static_cast<size_t>(i) * cols_ + j]; }

 private:
  std::vector<double> value_;
  std::vector<uint32_t> stamp_;
  uint32_t gen_ = 0;
  int cols_ = 0;
};

enum class Kind { STK, PTK };

Kind parse_kind(const std::string& kind) {
  if (kind == "stk") return Kind::STK;
  if (kind == "ptk") return Kind::PTK;
  throw std::invalid_argument("kind must be 'stk' or 'ptk', not '" + kind + "'");
}

// One kernel with its parameters and its reusable work space (not thread-safe: one per call).
class Kernel {
 public:
  Kernel(Kind kind, double lam, double mu) : kind_(kind), lam_(lam), lam2_(lam * lam), mu_(mu) {}

  double operator()(const Encoded& a, const Encoded& b) {
    memo_.start(a.size(), b.size());
    a_ = &a;
    b_ = &b;
    return kind_ == Kind::STK ? merge(a.by_prod, b.by_prod, a.prod, b.prod, &Kernel::stk_delta)
                              : merge(a.by_label, b.by_label, a.label, b.label, &Kernel::ptk_delta);
  }

 private:
  // Σ Δ over the node pairs whose keys are equal, walking the two sorted lists once.
  double merge(const std::vector<int32_t>& xs, const std::vector<int32_t>& zs, const std::vector<int32_t>& kx,
               const std::vector<int32_t>& kz, double (Kernel::*delta)(int, int)) {
    double sum = 0;
    size_t i = 0, j = 0;
    while (i < xs.size() && j < zs.size()) {
      const int32_t key_x = kx[xs[i]], key_z = kz[zs[j]];
      if (key_x < key_z) {
        ++i;
      } else if (key_z < key_x) {
        ++j;
      } else {
        size_t i_end = i, j_end = j;
        while (i_end < xs.size() && kx[xs[i_end]] == key_x) ++i_end;
        while (j_end < zs.size() && kz[zs[j_end]] == key_x) ++j_end;
        for (size_t p = i; p < i_end; ++p)
          for (size_t q = j; q < j_end; ++q) sum += (this->*delta)(xs[p], zs[q]);
        i = i_end;
        j = j_end;
      }
    }
    return sum;
  }

  double stk_delta(int x, int z) {
    double v;
    if (memo_.find(x, z, &v)) return v;
    const Encoded &a = *a_, &b = *b_;
    if (a.prod[x] != b.prod[z] || a.prod[x] < 0) return memo_.put(x, z, 0.0);
    if (a.preterminal[x] && b.preterminal[z]) return memo_.put(x, z, lam_);
    double product = lam_;
    const int n = std::min(a.nkids(x), b.nkids(z));  // equal for equal productions
    for (int j = 0; j < n; ++j) {
      const int cx = a.kid(x, j), cz = b.kid(z, j);
      // a leaf child (a word inside a mixed production) has no Δ of its own: factor 1 + 0
      if (!a.leaf(cx) && !b.leaf(cz) && a.prod[cx] == b.prod[cz]) product *= 1.0 + stk_delta(cx, cz);
    }
    return memo_.put(x, z, product);
  }

  double ptk_delta(int x, int z) {
    double v;
    if (memo_.find(x, z, &v)) return v;
    const Encoded &a = *a_, &b = *b_;
    if (a.label[x] != b.label[z]) return memo_.put(x, z, 0.0);
    if (a.leaf(x) || b.leaf(z)) return memo_.put(x, z, mu_ * lam2_);
    // children's Δ first, so that the DP below runs without recursing and can share one scratch space
    for (int i = 0; i < a.nkids(x); ++i)
      for (int j = 0; j < b.nkids(z); ++j)
        if (a.label[a.kid(x, i)] == b.label[b.kid(z, j)]) ptk_delta(a.kid(x, i), b.kid(z, j));
    return memo_.put(x, z, mu_ * (lam2_ + child_sequences(x, z)));
  }

  // Σ_p Δ_p over the children of x and z (see the header). dps_ holds Δ_p(i,j): the sum over the
  // length-p sequence pairs ending exactly at children i and j (1-based; row and column 0 are 0).
  double child_sequences(int x, int z) {
    const Encoded &a = *a_, &b = *b_;
    const int n = a.nkids(x), m = b.nkids(z), w = m + 1;
    d_.assign(static_cast<size_t>(n + 1) * w, 0.0);
    for (int i = 1; i <= n; ++i)
      for (int j = 1; j <= m; ++j) {
        const int cx = a.kid(x, i - 1), cz = b.kid(z, j - 1);
        if (a.label[cx] == b.label[cz]) d_[i * w + j] = memo_.get(cx, cz);
      }
    dps_ = d_;
    double total = 0;
    for (double v : d_) total += v;
    c_prev_.resize(w);
    c_row_.resize(w);
    for (int p = 2; p <= std::min(n, m); ++p) {
      // D_p(i-1, j-1), built a row at a time: C(i,j) = Σ_{s≤i,t≤j} Δ_{p-1}(s,t) λ^{(i−s)+(j−t)}
      std::fill(c_prev_.begin(), c_prev_.end(), 0.0);
      double level = 0;
      // Δ_{p-1} is 0 above row p-1 (and stays so in dps_, row p-1 being zeroed at each level)
      for (int i = p - 1; i <= n; ++i) {
        double run = 0;
        c_row_[0] = 0;
        for (int j = 1; j <= m; ++j) {
          run = dps_[i * w + j] + lam_ * run;
          c_row_[j] = run + lam_ * c_prev_[j];
        }
        // row i of Δ_{p-1} is used up, so row i of Δ_p can take its place
        for (int j = 1; j <= m; ++j) {
          const double v = d_[i * w + j] * c_prev_[j - 1];
          dps_[i * w + j] = v;
          level += v;
        }
        std::swap(c_prev_, c_row_);
      }
      total += level;
      if (level == 0) break;  // no common length-p sequence, so none longer
    }
    return total;
  }

  Kind kind_;
  double lam_, lam2_, mu_;
  const Encoded* a_ = nullptr;
  const Encoded* b_ = nullptr;
  Memo memo_;
  std::vector<double> d_, dps_, c_prev_, c_row_;
};

void check_parameters(double lam, double mu) {
  if (!(lam >= 0) || !std::isfinite(lam) || !(mu >= 0) || !std::isfinite(mu))
    throw std::invalid_argument("lam and mu must be finite and >= 0");
}

// pybind11 turns None into a null pointer
void check_trees(const std::vector<const Encoded*>& trees) {
  for (const Encoded* t : trees)
    if (t == nullptr) throw std::invalid_argument("None where an encoded tree was expected");
}

// Self-kernels for normalisation, once per distinct tree object of a call.
class Norms {
 public:
  explicit Norms(Kernel& k) : k_(k) {}
  double operator()(const Encoded* t) {
    auto it = cache_.find(t);
    if (it != cache_.end()) return it->second;
    return cache_[t] = std::sqrt(k_(*t, *t));
  }

 private:
  Kernel& k_;
  std::unordered_map<const Encoded*, double> cache_;
};

double normalized(Kernel& k, Norms& norm, const Encoded* a, const Encoded* b) {
  const double na = norm(a), nb = norm(b);
  if (na == 0 || nb == 0) return 0.0;
  return k(*a, *b) / (na * nb);
}

py::array_t<double> gram(const std::vector<const Encoded*>& rows, const std::vector<const Encoded*>& cols,
                         const std::string& kind, double lam, double mu, bool normalize) {
  check_parameters(lam, mu);
  Kernel k(parse_kind(kind), lam, mu);
  check_trees(rows);
  check_trees(cols);
  py::array_t<double> out(std::vector<py::ssize_t>{static_cast<py::ssize_t>(rows.size()),
                                                   static_cast<py::ssize_t>(cols.size())});
  double* o = out.mutable_data();
  {
    py::gil_scoped_release nogil;
    Norms norm(k);
    for (size_t i = 0; i < rows.size(); ++i)
      for (size_t j = 0; j < cols.size(); ++j)
        o[i * cols.size() + j] = normalize ? normalized(k, norm, rows[i], cols[j]) : k(*rows[i], *cols[j]);
  }
  return out;
}

py::array_t<double> paired(const std::vector<const Encoded*>& as, const std::vector<const Encoded*>& bs,
                           const std::string& kind, double lam, double mu, bool normalize) {
  if (as.size() != bs.size()) throw std::invalid_argument("paired needs two lists of the same length");
  check_parameters(lam, mu);
  check_trees(as);
  check_trees(bs);
  Kernel k(parse_kind(kind), lam, mu);
  py::array_t<double> out(static_cast<py::ssize_t>(as.size()));
  double* o = out.mutable_data();
  {
    py::gil_scoped_release nogil;
    Norms norm(k);
    for (size_t i = 0; i < as.size(); ++i) o[i] = normalize ? normalized(k, norm, as[i], bs[i]) : k(*as[i], *bs[i]);
  }
  return out;
}

double kernel(const Encoded& a, const Encoded& b, const std::string& kind, double lam, double mu, bool normalize) {
  check_parameters(lam, mu);
  Kernel k(parse_kind(kind), lam, mu);
  if (!normalize) return k(a, b);
  Norms norm(k);
  return normalized(k, norm, &a, &b);
}

}  // namespace

PYBIND11_MODULE(_kernels, m) {
  m.doc() = "Subset Tree Kernel and Partial Tree Kernel over encoded trees (see cad/eval/rank/kernels.py)";
  py::class_<Encoded>(m, "Encoded")
      .def(py::init<const IntArray&, const IntArray&, const IntArray&, const IntArray&>(), py::arg("labels"),
           py::arg("child_ptr"), py::arg("child_idx"), py::arg("productions"))
      .def_property_readonly("size", &Encoded::size);
  m.def("kernel", &kernel, py::arg("a"), py::arg("b"), py::arg("kind"), py::arg("lam"), py::arg("mu"),
        py::arg("normalize"));
  m.def("gram", &gram, py::arg("rows"), py::arg("cols"), py::arg("kind"), py::arg("lam"), py::arg("mu"),
        py::arg("normalize"));
  m.def("paired", &paired, py::arg("a"), py::arg("b"), py::arg("kind"), py::arg("lam"), py::arg("mu"),
        py::arg("normalize"));
}
