// What the compiled cores that read text files through _text.hpp (cad/moses/_binarize.cpp,
// cad/train/_lex.cpp) share with Python: a user's error carrying its file and line, Ctrl-C seen
// while the GIL was released, and Python's repr() for the messages that quote a text.
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace cadtext {

// A user's error, raised as CadError(message, path, line); an empty path or a line 0 is none
struct UserError {
  std::string message, path;
  int64_t line = 0;
};

// Ctrl-C seen while the GIL was released: the KeyboardInterrupt is pending in Python
struct Interrupted {};

inline void check_signals() {
  pybind11::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw Interrupted{};
}

// Python's repr() of a text, for the messages that quote it as the Python code does
inline std::string py_repr(std::string_view s) {
  pybind11::gil_scoped_acquire gil;
  return pybind11::repr(pybind11::str(s.data(), s.size())).cast<std::string>();
}

}  // namespace cadtext
