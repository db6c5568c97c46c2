#include "import/kineto/trace_input.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace kscope::import::kineto {

namespace {
constexpr size_t kRawChunk = size_t{1} << 18;   // 256 KiB of the file at a time
constexpr size_t kTextChunk = size_t{1} << 18;  // 256 KiB of inflated text at a time
}  // namespace

TraceInput::TraceInput(const std::string& path) : raw_(kRawChunk) {
  file_.reset(std::fopen(path.c_str(), "rb"));
  if (!file_) {
    error_ = fmt::format("cannot open the file ({})", std::strerror(errno));
    eof_ = true;
    return;
  }
  StartGzipIfMagic();
}

TraceInput::TraceInput(const uint8_t* data, size_t size) : mem_(data), mem_size_(size), raw_(kRawChunk) {
  StartGzipIfMagic();
}

TraceInput::~TraceInput() {
  if (z_open_) inflateEnd(&z_);
}

void TraceInput::StartGzipIfMagic() {
  if (!ReadRaw()) {
    at_ = end_ = nullptr;
    return;
  }
  gzip_ = raw_len_ >= 2 && raw_[0] == 0x1f && raw_[1] == 0x8b;
  if (!gzip_) {
    Serve(reinterpret_cast<const char*>(raw_.data()), raw_len_);
    return;
  }
  text_.resize(kTextChunk);
  if (inflateInit2(&z_, 15 + 16) != Z_OK) {  // 15 + 16: a gzip wrapper, the largest window
    error_ = "cannot start the gzip decoder";
    eof_ = true;
    return;
  }
  z_open_ = true;
  z_.next_in = raw_.data();
  z_.avail_in = static_cast<uInt>(raw_len_);
  begin_ = at_ = end_ = text_.data();
}

bool TraceInput::ReadRaw() {
  if (raw_eof_) return false;
  if (file_) {
    raw_len_ = std::fread(raw_.data(), 1, raw_.size(), file_.get());
    if (raw_len_ < raw_.size()) {
      if (std::ferror(file_.get())) error_ = fmt::format("read error ({})", std::strerror(errno));
      raw_eof_ = true;
    }
  } else {
    raw_len_ = std::min(raw_.size(), mem_size_ - mem_at_);
    std::memcpy(raw_.data(), mem_ + mem_at_, raw_len_);
    mem_at_ += raw_len_;
    raw_eof_ = mem_at_ == mem_size_;
  }
  raw_read_ += raw_len_;
  if (raw_len_ == 0) eof_ = true;
  return raw_len_ > 0 && error_.empty();
}

bool TraceInput::Refill() {
  if (eof_ || !error_.empty()) return false;
  if (gzip_) return Inflate();
  if (!ReadRaw()) {
    eof_ = true;
    return false;
  }
  Serve(reinterpret_cast<const char*>(raw_.data()), raw_len_);
  return true;
}

void TraceInput::Serve(const char* text, size_t n) {
  before_ += static_cast<size_t>(end_ - begin_);  // the buffer before was read to its end
  begin_ = at_ = text;
  end_ = text + n;
}

// Inflates until some text comes out, the data ends or it fails. Several gzip members one
// after another are one stream, as gzip reads them; bytes after the last member that do not
// start another are ignored, as gzip does.
bool TraceInput::Inflate() {
  while (true) {
    if (z_member_done_) {
      if (z_.avail_in == 0 && !ReadRaw()) break;
      if (z_.avail_in == 0) {
        z_.next_in = raw_.data();
        z_.avail_in = static_cast<uInt>(raw_len_);
      }
      if (z_.next_in[0] != 0x1f) break;  // not another member: trailing bytes
      inflateReset(&z_);
      z_member_done_ = false;
    }
    if (z_.avail_in == 0) {
      if (!ReadRaw()) {
        if (error_.empty()) error_ = "the gzip data ends early (the file is cut short)";
        eof_ = true;
        return false;
      }
      z_.next_in = raw_.data();
      z_.avail_in = static_cast<uInt>(raw_len_);
    }
    z_.next_out = reinterpret_cast<Bytef*>(text_.data());
    z_.avail_out = static_cast<uInt>(text_.size());
    const int rc = inflate(&z_, Z_NO_FLUSH);
    const size_t produced = text_.size() - z_.avail_out;
    if (rc == Z_STREAM_END) {
      z_member_done_ = true;
    } else if (rc != Z_OK && !(rc == Z_BUF_ERROR && produced > 0)) {
      error_ = fmt::format("corrupt gzip data ({})", z_.msg != nullptr ? z_.msg : "zlib error " + std::to_string(rc));
      eof_ = true;
      return false;
    }
    if (produced > 0) {
      Serve(text_.data(), produced);
      return true;
    }
  }
  eof_ = true;
  return false;
}

}  // namespace kscope::import::kineto
