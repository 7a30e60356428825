// Text tables read as cad/core/textio.py's read_lines reads them, for the compiled binarizer
// (cad/moses/_binarize.cpp): a file, gzip or plain, decompressed on a thread of its own and handed
// over in chunks of whole lines, never the whole file in memory; the UTF-8 check Python's strict
// decoder makes; and the whitespace Python's str.split() and str.strip() split and strip at.
#pragma once

#include <zlib.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <initializer_list>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

namespace cadtext {

using sv = std::string_view;

// A read failure: the message read_lines gives after "cannot read: "
struct ReadError {
  std::string message;
};

// The bytes of a file, gunzipped when `gz` (cad's rule: the name ends in .gz). As Python's gzip
// module: members one after another, zero bytes between them skipped, an empty file empty.
class Source {
 public:
  Source(const std::string& path, bool gz) : gz_(gz), in_(1 << 18) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw ReadError{std::strerror(errno)};
    if (gz_) {
      std::memset(&zs_, 0, sizeof zs_);
      if (inflateInit2(&zs_, 16 + MAX_WBITS) != Z_OK) {
        ::close(fd_);
        throw ReadError{"cannot start zlib"};
      }
    }
  }
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;
  ~Source() {
    if (gz_) inflateEnd(&zs_);
    ::close(fd_);
  }

  // Up to `cap` bytes into `out`; 0 at the end. The bytes decoded before a damaged or truncated
  // stream are returned first, its error at the next call, as Python's gzip reader does.
  size_t read(char* out, size_t cap) {
    if (!error_.empty()) throw ReadError{error_};
    if (!gz_) return raw(out, cap);
    zs_.next_out = reinterpret_cast<Bytef*>(out);
    zs_.avail_out = static_cast<uInt>(cap);
    while (zs_.avail_out > 0) {
      if (!in_member_ && !start_member()) break;
      if (zs_.avail_in == 0 && !refill()) {
        error_ = "Compressed file ended before the end-of-stream marker was reached";
        break;
      }
      int r = inflate(&zs_, Z_NO_FLUSH);
      if (r == Z_STREAM_END) {
        in_member_ = false;
        members_++;
      } else if (r != Z_OK && !(r == Z_BUF_ERROR && zs_.avail_in == 0)) {
        std::string why = zs_.msg ? zs_.msg : "error " + std::to_string(r);
        error_ = (why == "incorrect header check" ? "not a gzip file (" : "damaged gzip data (") + why + ")";
        break;
      }
    }
    size_t got = cap - zs_.avail_out;
    if (got == 0 && !error_.empty()) throw ReadError{error_};
    return got;
  }

 private:
  size_t raw(char* out, size_t cap) {
    for (;;) {
      ssize_t n = ::read(fd_, out, cap);
      if (n >= 0) return static_cast<size_t>(n);
      if (errno != EINTR) throw ReadError{std::strerror(errno)};
    }
  }
  bool refill() {
    size_t n = raw(reinterpret_cast<char*>(in_.data()), in_.size());
    zs_.next_in = in_.data();
    zs_.avail_in = static_cast<uInt>(n);
    return n > 0;
  }
  // false at the end of the file; a member's header is inflate's to check
  bool start_member() {
    for (;;) {
      if (zs_.avail_in == 0 && !refill()) return false;
      if (members_ == 0) break;
      while (zs_.avail_in > 0 && *zs_.next_in == 0) {    // padding after a member
        zs_.next_in++;
        zs_.avail_in--;
      }
      if (zs_.avail_in > 0) break;
    }
    if (members_ > 0) inflateReset(&zs_);
    in_member_ = true;
    return true;
  }

  bool gz_;
  int fd_ = -1;
  z_stream zs_;
  std::vector<Bytef> in_;
  bool in_member_ = false;
  uint64_t members_ = 0;
  std::string error_;
};

// A file's bytes in chunks that end at a newline (the last may not: a last line without one),
// read and decompressed on a thread of its own while the caller works on the previous chunks. At
// most kQueued chunks wait, so memory stays a few chunks whatever the file's size.
class ChunkReader {
 public:
  static constexpr size_t kChunk = 4 << 20;
  static constexpr size_t kQueued = 3;

  ChunkReader(const std::string& path, bool gz) : thread_([this, path, gz] { run(path, gz); }) {}
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;
  ~ChunkReader() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  // The next chunk into `out` (its previous buffer is taken back for reuse); false at the end,
  // when error() says whether the file ended or could not be read further.
  bool next(std::string& out) {
    std::unique_lock<std::mutex> lock(mu_);
    if (out.capacity() > 0 && spare_.size() < 2) spare_.push_back(std::move(out));
    cv_.wait(lock, [this] { return !full_.empty() || done_; });
    if (full_.empty()) return false;
    out = std::move(full_.front());
    full_.pop_front();
    cv_.notify_all();
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  void run(const std::string& path, bool gz) {
    std::string err;
    try {
      Source src(path, gz);
      std::string pending;
      for (;;) {
        size_t old = pending.size();
        pending.resize(old + kChunk);
        size_t n = src.read(&pending[old], kChunk);
        pending.resize(old + n);
        if (n == 0) {
          if (!pending.empty() && !push(std::move(pending))) return;
          break;
        }
        // the carried bytes hold no newline: only the new ones are searched
        size_t nl = sv(pending).substr(old).rfind('\n');
        if (nl == sv::npos) continue;               // a line longer than a chunk: read on
        nl += old;
        std::string next = take_spare();
        next.assign(pending, nl + 1, std::string::npos);
        pending.resize(nl + 1);
        if (!push(std::move(pending))) return;
        pending = std::move(next);
      }
    } catch (const ReadError& e) {
      err = e.message.empty() ? "read error" : e.message;
    } catch (const std::exception& e) {
      err = e.what();
    }
    std::lock_guard<std::mutex> lock(mu_);
    error_ = err;
    done_ = true;
    cv_.notify_all();
  }
  bool push(std::string&& chunk) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return full_.size() < kQueued || stop_; });
    if (stop_) return false;
    full_.push_back(std::move(chunk));
    cv_.notify_all();
    return true;
  }
  std::string take_spare() {
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.empty()) return std::string();
    std::string s = std::move(spare_.back());
    spare_.pop_back();
    s.clear();
    return s;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> full_;
  std::vector<std::string> spare_;
  bool done_ = false, stop_ = false;
  std::string error_;
  std::thread thread_;     // last: started once every other member is ready
};

// Where the first byte not part of well-formed UTF-8 is (Python's UnicodeDecodeError.start), or
// npos: Python's strict decoder refuses overlong forms, surrogates and anything above U+10FFFF.
inline size_t invalid_utf8(sv s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size(), i = 0;
  while (i < n) {
    // ASCII eight bytes at a time: nearly every byte of a table
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    unsigned c = p[i];
    if (c < 0x80) {
      i++;
      continue;
    }
    auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) { return i + k < n && p[i + k] >= lo && p[i + k] <= hi; };
    if (c >= 0xC2 && c <= 0xDF) {
      if (!cont(1)) return i;
      i += 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
      if (!cont(1, lo, hi) || !cont(2)) return i;
      i += 3;
    } else if (c >= 0xF0 && c <= 0xF4) {
      unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
      if (!cont(1, lo, hi) || !cont(2) || !cont(3)) return i;
      i += 4;
    } else {
      return i;
    }
  }
  return sv::npos;
}

// The length of the whitespace character (str.isspace(): Python's str.split() and str.strip())
// starting at `p`, or 0. The text is well-formed UTF-8: a lead byte starts each match.
// 1: a space of one byte; 2: the lead byte of a space of several (C2, E1, E2, E3); 0: neither
struct SpaceTable {
  unsigned char kind[256] = {};
  constexpr SpaceTable() {
    for (int c : {0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x1F, 0x20}) kind[c] = 1;
    for (int c : {0xC2, 0xE1, 0xE2, 0xE3}) kind[c] = 2;
  }
};
inline constexpr SpaceTable kSpaces{};

inline size_t space_at(const char* p, const char* end) {
  auto c = static_cast<unsigned char>(*p);
  unsigned kind = kSpaces.kind[c];
  if (kind < 2) return kind;        // nearly every byte of a table
  size_t left = end - p;
  auto b = [&](size_t k) { return static_cast<unsigned char>(p[k]); };
  if (c == 0xC2) return left >= 2 && (b(1) == 0x85 || b(1) == 0xA0) ? 2 : 0;
  if (left < 3) return 0;
  if (c == 0xE1) return b(1) == 0x9A && b(2) == 0x80 ? 3 : 0;      // U+1680
  if (c == 0xE2) {
    if (b(1) == 0x80) {
      unsigned d = b(2);                                            // U+2000..200A, 2028, 2029, 202F
      return (d <= 0x8A || d == 0xA8 || d == 0xA9 || d == 0xAF) ? 3 : 0;
    }
    return b(1) == 0x81 && b(2) == 0x9F ? 3 : 0;                    // U+205F
  }
  if (c == 0xE3) return b(1) == 0x80 && b(2) == 0x80 ? 3 : 0;      // U+3000
  return 0;
}

// The length of the whitespace character ending just before `end`, or 0
inline size_t space_before(const char* begin, const char* end) {
  size_t n = end - begin;
  if (n == 0) return 0;
  if (static_cast<unsigned char>(end[-1]) < 0x80) return space_at(end - 1, end);
  // a character of two bytes or three: the one that starts there and ends at `end`
  for (size_t k : {size_t(2), size_t(3)})
    if (n >= k && space_at(end - k, end) == k) return k;
  return 0;
}

// str.strip()
inline sv strip(sv s) {
  const char* b = s.data();
  const char* e = b + s.size();
  while (b < e) {
    size_t k = space_at(b, e);
    if (!k) break;
    b += k;
  }
  while (e > b) {
    size_t k = space_before(b, e);
    if (!k) break;
    e -= k;
  }
  return sv(b, e - b);
}

// str.split(): the words of `s`, as views into it
inline void split(sv s, std::vector<sv>& out) {
  out.clear();
  const char* p = s.data();
  const char* e = p + s.size();
  while (p < e) {
    size_t k;
    while (p < e && (k = space_at(p, e))) p += k;
    if (p == e) break;
    const char* w = p;
    while (p < e && !space_at(p, e)) p++;
    out.emplace_back(w, p - w);
  }
}

// " ".join(s.split()), into `out`
inline void normalize(sv s, std::vector<sv>& words, std::string& out) {
  split(s, words);
  out.clear();
  for (size_t i = 0; i < words.size(); i++) {
    if (i) out += ' ';
    out.append(words[i]);
  }
}

}  // namespace cadtext
