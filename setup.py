"""Build of the compiled parts (the decoder core, cad/decoder/_core.cpp, the tree kernels,
cad/eval/rank/_kernels.cpp, MERT's line search, cad/tune/_mert.cpp, the Kneser-Ney estimator,
cad/lm/_kn.cpp, phrase extraction and scoring, cad/train/_phrases.cpp, the word translation tables,
cad/train/_lex.cpp, and the binary tables' writer, cad/moses/_binarize.cpp); everything else is in
setup.cfg."""

from pybind11.setup_helpers import Pybind11Extension
from setuptools import setup

# what the cores reading text tables share (a change to them rebuilds both)
TEXT_HEADERS = ["cad/moses/_text.hpp", "cad/moses/_pyerr.hpp"]

setup(ext_modules=[
    # -ffp-contract=off: no fused multiply-add, so that every score is the same double as the
    # Python search computes
    Pybind11Extension("cad.decoder._core", ["cad/decoder/_core.cpp"], cxx_std=17,
                      extra_compile_args=["-O2", "-ffp-contract=off"]),
    Pybind11Extension("cad.eval.rank._kernels", ["cad/eval/rank/_kernels.cpp"], cxx_std=17,
                      extra_compile_args=["-O2"]),
    # MERT's line search: no fused multiply-add, so that it computes what the Python one does
    Pybind11Extension("cad.tune._mert", ["cad/tune/_mert.cpp"], cxx_std=17,
                      extra_compile_args=["-O2", "-ffp-contract=off"]),
    # the language model: no fused multiply-add, so that every probability is the Python estimate's
    Pybind11Extension("cad.lm._kn", ["cad/lm/_kn.cpp"], cxx_std=17,
                      extra_compile_args=["-O2", "-ffp-contract=off"]),
    # the phrase tables: no fused multiply-add, so that every score is the Python scorer's
    Pybind11Extension("cad.train._phrases", ["cad/train/_phrases.cpp"], cxx_std=17,
                      libraries=["z"], extra_compile_args=["-O2", "-ffp-contract=off"]),
    # `cad lex`: one division a line, no other arithmetic; it reads its inputs as the binarizer does
    Pybind11Extension("cad.train._lex", ["cad/train/_lex.cpp"], cxx_std=17,
                      depends=TEXT_HEADERS, libraries=["z"], extra_compile_args=["-O2"]),
    # `cad binarize`: no arithmetic on the scores (each is the double float() reads), zlib to read .gz
    Pybind11Extension("cad.moses._binarize", ["cad/moses/_binarize.cpp"], cxx_std=17,
                      depends=TEXT_HEADERS, libraries=["z"], extra_compile_args=["-O2"]),
])
