// A trace file as a RapidJSON input stream, inflated as it is read when it is gzip (.json.gz),
// so that plain and compressed traces take one path and neither is ever held whole: the
// stream keeps one buffer of the file and one of its inflated text.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kscope::import::kineto {

class TraceInput {
 public:
  using Ch = char;  // RapidJSON's stream concept

  // Opens `path`; error() says why when it cannot be read.
  explicit TraceInput(const std::string& path);
  // The same over bytes in memory (the fuzzer's entry, tests).
  TraceInput(const uint8_t* data, size_t size);
  ~TraceInput();
  TraceInput(const TraceInput&) = delete;
  TraceInput& operator=(const TraceInput&) = delete;

  Ch Peek() {
    if (at_ == end_ && !Refill()) return '\0';
    return *at_;
  }
  Ch Take() {
    if (at_ == end_ && !Refill()) return '\0';
    return *at_++;
  }
  [[nodiscard]] size_t Tell() const { return before_ + static_cast<size_t>(at_ - begin_); }
  // Passes over JSON whitespace (RapidJSON's SkipWhitespace, below), a buffer at a time.
  void SkipSpaces() {
    do {
      while (at_ != end_) {
        const char c = *at_;
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return;
        ++at_;
      }
    } while (Refill());
  }
  // The rest of the text a buffer at a time (a scan that needs no JSON); empty at its end.
  std::string_view NextText() {
    if (at_ == end_ && !Refill()) return {};
    const std::string_view text(at_, static_cast<size_t>(end_ - at_));
    at_ = end_;
    return text;
  }
  // Unused by the reader, required by the concept.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  size_t PutEnd(Ch*) { return 0; }

  [[nodiscard]] bool gzip() const { return gzip_; }
  // Whether the text ended because the input did (all of it read, no error).
  [[nodiscard]] bool at_end() const { return at_ == end_ && eof_ && error_.empty(); }
  // Empty unless reading or inflating failed (a corrupt or cut gzip stream, an I/O error).
  [[nodiscard]] const std::string& error() const { return error_; }
  // Bytes of the file read so far (compressed bytes for gzip).
  [[nodiscard]] uint64_t raw_bytes() const { return raw_read_; }

 private:
  bool Refill();
  void Serve(const char* text, size_t n);  // the next buffer of text to read
  bool ReadRaw();
  bool Inflate();
  void StartGzipIfMagic();

  std::unique_ptr<FILE, int (*)(FILE*)> file_{nullptr, &fclose};
  const uint8_t* mem_ = nullptr;  // the in-memory input, when there is no file
  size_t mem_size_ = 0, mem_at_ = 0;
  std::vector<uint8_t> raw_;     // bytes as read from the file
  std::vector<char> text_;       // inflated text (gzip) or raw_ reinterpreted
  size_t raw_len_ = 0;           // valid bytes in raw_
  const char* begin_ = nullptr;  // the text buffer being read
  const char* at_ = nullptr;     // next character
  const char* end_ = nullptr;    // end of the valid text
  size_t before_ = 0;            // characters of the buffers before this one
  uint64_t raw_read_ = 0;
  bool gzip_ = false, z_open_ = false, z_member_done_ = false, eof_ = false, raw_eof_ = false;
  z_stream z_{};
  std::string error_;
};

// RapidJSON skips whitespace through this overload (found by argument-dependent lookup, it is
// preferred to its character-at-a-time template): pretty-printed traces are a fifth spaces.
inline void SkipWhitespace(TraceInput& is) { is.SkipSpaces(); }

}  // namespace kscope::import::kineto
