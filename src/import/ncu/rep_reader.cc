#include "import/ncu/rep_reader.h"

#include <fmt/format.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>

#include "import/ncu/rep_launch.h"
#include "import/ncu/rep_wire.h"

namespace kscope::import::ncu {

namespace {

constexpr std::string_view kFix = "check the file is a whole .ncu-rep written by Nsight Compute";
constexpr uint64_t kMaxBlock = uint64_t{1} << 31;  // no block of a real report comes near 2 GiB
// What a read holds in memory, bounded where no report comes near (the devset's and the zoo's
// largest, the full section set: result blocks up to 1.3 MB, block headers up to 135 KB, strings
// of the string tables up to 110 bytes, 130 KB of them in all), so that a damaged or hostile
// file is refused with one line instead of filling memory. Blocks without results (the kernels'
// code) are passed over unread, whatever their size.
constexpr uint64_t kMaxHeldBlock = uint64_t{256} << 20;
constexpr uint64_t kMaxHeader = uint64_t{64} << 20;
constexpr size_t kMaxTableString = size_t{1} << 20;
constexpr size_t kMaxTableStrings = size_t{64} << 20;

// Where the bytes come from: a file read piece by piece, or bytes in memory.
class Source {
 public:
  virtual ~Source() = default;
  // Appends exactly `n` bytes to `out`, or returns false at the end of the input.
  virtual bool Read(size_t n, std::string& out) = 0;
  [[nodiscard]] virtual bool AtEnd() = 0;
  [[nodiscard]] virtual int64_t Offset() const = 0;
  [[nodiscard]] virtual uint64_t Remaining() const = 0;
  // Moves past `n` bytes without keeping them (callers check Remaining() first).
  virtual bool Skip(uint64_t n) = 0;
};

class FileSource : public Source {
 public:
  FileSource(FILE* f, uint64_t size) : f_(f), size_(size) {}
  ~FileSource() override { (void)std::fclose(f_); }  // read only: nothing to lose
  FileSource(const FileSource&) = delete;
  FileSource& operator=(const FileSource&) = delete;
  bool Read(size_t n, std::string& out) override {
    const size_t old = out.size();
    out.resize(old + n);
    const size_t got = std::fread(out.data() + old, 1, n, f_);
    offset_ += static_cast<int64_t>(got);
    out.resize(old + got);
    return got == n;
  }
  bool AtEnd() override {
    const int c = std::fgetc(f_);
    if (c == EOF) return true;
    (void)std::ungetc(c, f_);  // the byte fgetc just read: always goes back
    return false;
  }
  [[nodiscard]] int64_t Offset() const override { return offset_; }
  [[nodiscard]] uint64_t Remaining() const override {
    return size_ > static_cast<uint64_t>(offset_) ? size_ - static_cast<uint64_t>(offset_) : 0;
  }
  bool Skip(uint64_t n) override {
    if (n > Remaining() || fseeko(f_, static_cast<off_t>(n), SEEK_CUR) != 0) return false;
    offset_ += static_cast<int64_t>(n);
    return true;
  }

 private:
  FILE* f_;
  uint64_t size_;
  int64_t offset_ = 0;
};

class MemorySource : public Source {
 public:
  explicit MemorySource(std::string_view bytes) : rest_(bytes), size_(bytes.size()) {}
  bool Read(size_t n, std::string& out) override {
    const size_t take = std::min(n, rest_.size());
    out.append(rest_.substr(0, take));
    rest_.remove_prefix(take);
    return take == n;
  }
  bool AtEnd() override { return rest_.empty(); }
  [[nodiscard]] int64_t Offset() const override { return static_cast<int64_t>(size_ - rest_.size()); }
  [[nodiscard]] uint64_t Remaining() const override { return rest_.size(); }
  bool Skip(uint64_t n) override {
    if (n > rest_.size()) return false;
    rest_.remove_prefix(static_cast<size_t>(n));
    return true;
  }

 private:
  std::string_view rest_;
  size_t size_;
};

class Reader {
 public:
  Reader(Source& src, std::string where, const std::function<Status(const RepLaunch&)>& on_launch,
         RepInstances instances)
      : src_(src),
        where_(std::move(where)),
        on_launch_(on_launch),
        decoder_(strings_, instances, [this](const std::string& what) { return Bad(what); }) {}
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  Result<RepSummary> Run() {
    std::string head;
    if (!src_.Read(8, head)) {
      if (head.empty()) return Error{where_, "file is empty", std::string(kFix)};
      return Error{where_, "too short for an Nsight Compute report (" + std::to_string(head.size()) + " bytes)",
                   std::string(kFix)};
    }
    if (head.compare(0, 4, std::string_view("NVR\0", 4)) != 0) {
      return Error{where_, "not an Nsight Compute report (no NVR signature)", std::string(kFix)};
    }
    auto file_header = Message(wire::LoadU32(head.data() + 4), "file header");
    if (!file_header.ok()) return file_header.error();
    wire::Cursor c(*file_header);
    while (auto f = c.Next()) {
      if (f->number == 1 && f->type == wire::Type::kVarint) summary_.version = f->bits;
    }
    if (c.failed()) return Bad("the file header is not a valid message");
    if (summary_.version != kRepVersionRead) {
      return Error{where_,
                   fmt::format("report format version {}; kscope reads version {} (Nsight Compute 2025.3)",
                               summary_.version, kRepVersionRead),
                   "import it through the installed ncu: kscope import --via-ncu " + where_,
                   ErrorKind::kUnreadFormatVersion};
    }
    while (!src_.AtEnd()) KSCOPE_RETURN_IF_ERROR(Block());
    summary_.bytes = src_.Offset();
    return summary_;
  }

 private:
  Error Bad(const std::string& what) const {
    return Error{where_, fmt::format("{} (at byte {})", what, src_.Offset()), std::string(kFix)};
  }

  // A part of the report larger than kscope reads (its bounds above).
  Error PastBound(std::string_view what, uint64_t bytes, uint64_t bound) const {
    return Error{where_,
                 fmt::format("{} holds {} bytes (at byte {}), past kscope's bound of {} MiB for it in an .ncu-rep "
                             "(Nsight Compute's own stay far below)",
                             what, bytes, src_.Offset(), bound >> 20),
                 "check the file is a whole .ncu-rep written by Nsight Compute, or import it through ncu: kscope "
                 "import --via-ncu " +
                     where_};
  }

  // A uint32-prefixed message of `size` bytes, read into a fresh buffer.
  Result<std::string> Message(uint64_t size, const char* what) {
    if (size > kMaxBlock || size > src_.Remaining()) {
      return Bad(fmt::format("cut off or corrupt: the {} claims {} bytes, {} remain", what, size, src_.Remaining()));
    }
    std::string out;
    if (!src_.Read(static_cast<size_t>(size), out)) return Bad(fmt::format("cut off inside the {}", what));
    return out;
  }

  // A block's session entry: 6 a device (2 its name), 8 a recorded version (1 what, 2 which).
  Status Session(std::string_view msg) {
    wire::Cursor c(msg);
    while (auto f = c.Next()) {
      if (f->type != wire::Type::kBytes || (f->number != 6 && f->number != 8)) continue;
      std::string_view key, value;
      wire::Cursor e(f->data);
      while (auto g = e.Next()) {
        if (g->type != wire::Type::kBytes) continue;
        if (g->number == 1) key = g->data;
        if (g->number == 2) value = g->data;
      }
      if (e.failed()) return Bad("a session entry is not a valid message");
      if (f->number == 6 && summary_.gpu.empty()) summary_.gpu = value;
      if (f->number == 8 && key == "Nsight Compute Target") summary_.ncu_version = value.substr(0, value.find(' '));
      if (f->number == 8 && key == "CUDA Version") summary_.cuda_version = value;
    }
    if (c.failed()) return Bad("a block's session entry is not a valid message");
    return Status::Ok();
  }

  Status Block() {
    std::string prefix;
    if (!src_.Read(4, prefix)) return Bad("cut off inside a block header's size");
    const uint32_t header_bytes = wire::LoadU32(prefix.data());
    if (header_bytes > kMaxHeader && header_bytes <= src_.Remaining()) {
      return PastBound("a block header", header_bytes, kMaxHeader);
    }
    auto header = Message(header_bytes, "block header");
    if (!header.ok()) return header.error();
    uint64_t sources = 0, results = 0, payload = 0;
    std::string_view host, exe;
    uint64_t pid = 0;
    wire::Cursor c(*header);
    while (auto f = c.Next()) {
      if (f->number == 1 && f->type == wire::Type::kVarint) sources = f->bits;
      if (f->number == 2 && f->type == wire::Type::kVarint) results = f->bits;
      if (f->number == 5 && f->type == wire::Type::kVarint) payload = f->bits;
      if (f->number == 4 && f->type == wire::Type::kBytes) {
        wire::Cursor st(f->data);
        while (auto s = st.Next()) {
          if (s->number != 1 || s->type != wire::Type::kBytes) continue;
          if (s->data.size() > kMaxTableString)
            return PastBound("a string of its string table", s->data.size(), kMaxTableString);
          strings_bytes_ += s->data.size();
          if (strings_bytes_ > kMaxTableStrings)
            return PastBound("its string tables", strings_bytes_, kMaxTableStrings);
          strings_.emplace_back(s->data);
        }
        if (st.failed()) return Bad("a block's string table is not a valid message");
      }
      if (f->number == 3 && f->type == wire::Type::kBytes) KSCOPE_RETURN_IF_ERROR(Session(f->data));
      if (f->number == 6 && f->type == wire::Type::kBytes) {
        wire::Cursor p(f->data);
        while (auto s = p.Next()) {
          if (s->number == 1 && s->type == wire::Type::kVarint) pid = s->bits;
          if (s->number == 2 && s->type == wire::Type::kBytes) host = s->data;
          if (s->number == 3 && s->type == wire::Type::kBytes) exe = s->data;
        }
        if (p.failed()) return Bad("a block's process entry is not a valid message");
      }
    }
    if (c.failed()) return Bad("a block header is not a valid message");
    if (payload > kMaxBlock || payload > src_.Remaining()) {
      return Bad(
          fmt::format("cut off or corrupt: a block claims {} bytes of payload, {} remain", payload, src_.Remaining()));
    }
    if (results == 0) {  // sources (the kernels' code) and session data: passed over unread
      if (!src_.Skip(payload)) return Bad("cut off inside a block's payload");
      return Status::Ok();
    }
    if (payload > kMaxHeldBlock) return PastBound("a block of results", payload, kMaxHeldBlock);
    payload_.clear();
    if (!src_.Read(static_cast<size_t>(payload), payload_)) return Bad("cut off inside a block's payload");
    std::string_view rest = payload_;
    const uint64_t messages = sources + results;
    for (uint64_t i = 0; i < messages; ++i) {
      if (rest.size() < 4) return Bad("a block holds fewer messages than its header counts");
      const uint32_t n = wire::LoadU32(rest.data());
      rest.remove_prefix(4);
      if (n > rest.size()) return Bad("a message runs past the end of its block");
      const std::string_view msg = rest.substr(0, n);
      rest.remove_prefix(n);
      if (i < sources) continue;  // a source (the kernel's code): not read
      KSCOPE_RETURN_IF_ERROR(Result_(msg, pid, host, exe));
    }
    if (!rest.empty()) return Bad("a block holds more bytes than its messages");
    return Status::Ok();
  }

  Status Result_(std::string_view msg, uint64_t block_pid, std::string_view host, std::string_view exe) {
    RepLaunch& l = launch_;
    l.id = summary_.launches;
    l.pid = static_cast<int64_t>(block_pid & 0x7FFFFFFF);
    l.host = host;
    const size_t slash = exe.rfind('/');
    l.process = slash == std::string_view::npos ? exe : exe.substr(slash + 1);
    KSCOPE_RETURN_IF_ERROR(decoder_.Decode(msg, l));
    ++summary_.launches;
    return on_launch_(l);
  }

  Source& src_;
  std::string where_;
  const std::function<Status(const RepLaunch&)>& on_launch_;
  std::deque<std::string> strings_;  // the string table, growing block by block; stable addresses
  size_t strings_bytes_ = 0;         // their bytes, against kMaxTableStrings
  RepLaunchDecoder decoder_;         // after strings_, which it reads
  std::string payload_;
  RepLaunch launch_;
  RepSummary summary_;
};

}  // namespace

const RepMetric* RepLaunch::Find(std::string_view metric) const {
  for (const auto& m : metrics) {
    if (m.name == metric) return &m;
  }
  return nullptr;
}

Result<RepSummary> ReadRep(const std::string& path, const std::function<Status(const RepLaunch&)>& on_launch,
                           RepInstances instances) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  FILE* f = ec ? nullptr : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Error{path, "cannot open the file", "check the path and its permissions"};
  FileSource src(f, size);
  return Reader(src, path, on_launch, instances).Run();
}

bool IsUnreadVersion(const Error& e) { return e.kind == ErrorKind::kUnreadFormatVersion; }

Result<RepSummary> ReadRepBytes(std::string_view bytes, const std::string& where,
                                const std::function<Status(const RepLaunch&)>& on_launch, RepInstances instances) {
  MemorySource src(bytes);
  return Reader(src, where, on_launch, instances).Run();
}

}  // namespace kscope::import::ncu
