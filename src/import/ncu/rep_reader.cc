#include "import/ncu/rep_reader.h"

#include <fmt/format.h>

#include <bit>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>

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
  ~FileSource() override { std::fclose(f_); }
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
    std::ungetc(c, f_);
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

// ProfileMetricValue: 1 string, 3 double, 5 uint64 (the kinds seen); other numbers are read
// by their wire type.
bool DecodeValue(std::string_view msg, RepValue& v) {
  wire::Cursor c(msg);
  while (auto f = c.Next()) {
    switch (f->type) {
      case wire::Type::kBytes:
        v.kind = RepValue::Kind::kString;
        v.s = f->data;
        break;
      case wire::Type::kFixed64:
        v.kind = RepValue::Kind::kDouble;
        v.d = f->AsDouble();
        break;
      case wire::Type::kFixed32:
        v.kind = RepValue::Kind::kDouble;
        v.d = std::bit_cast<float>(static_cast<uint32_t>(f->bits));
        break;
      case wire::Type::kVarint:
        v.kind = RepValue::Kind::kUint;
        v.u = f->bits;
        break;
    }
  }
  return !c.failed();
}

bool DecodeDim3(std::string_view msg, std::array<int64_t, 3>& out) {
  wire::Cursor c(msg);
  out = {0, 0, 0};
  while (auto f = c.Next()) {
    if (f->type == wire::Type::kVarint && f->number >= 1 && f->number <= 3) {
      out[f->number - 1] = static_cast<int64_t>(f->bits & 0x7FFFFFFF);
    }
  }
  return !c.failed();
}

// A rule message as ncu's details page prints it: "@section:ID:Title@" becomes the title,
// "@url:Text:https://...@" becomes "Text (https://...)"; other text is kept as it is.
std::string RenderRuleText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t at = text.find('@');
    out.append(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at);
    const size_t end = text.find('@', 1);
    const std::string_view inner = end == std::string_view::npos ? std::string_view{} : text.substr(1, end - 1);
    const size_t colon = inner.find(':');
    const std::string_view kind = inner.substr(0, colon);
    const size_t second = colon == std::string_view::npos ? colon : inner.find(':', colon + 1);
    if ((kind == "section" || kind == "url") && second != std::string_view::npos) {
      const std::string_view a = inner.substr(colon + 1, second - colon - 1), b = inner.substr(second + 1);
      if (kind == "section") {
        out.append(b);
      } else {
        out.append(a).append(" (").append(b).append(")");
      }
      text.remove_prefix(end + 1);
    } else {
      out.push_back('@');
      text.remove_prefix(1);
    }
  }
  return out;
}

class Reader {
 public:
  Reader(Source& src, std::string where, const std::function<Status(const RepLaunch&)>& on_launch,
         RepInstances instances)
      : src_(src), where_(std::move(where)), on_launch_(on_launch), instances_(instances) {}

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
    l.mangled = l.function = l.demangled = {};
    l.grid = l.block = {0, 0, 0};
    l.nvtx.clear();
    l.metrics.clear();
    l.rules.clear();
    wire::Cursor c(msg);
    while (auto f = c.Next()) {
      const bool bytes = f->type == wire::Type::kBytes;
      switch (f->number) {
        case 5:
          if (bytes) l.mangled = f->data;
          break;
        case 6:
          if (bytes) l.function = f->data;
          break;
        case 7:
          if (bytes) l.demangled = f->data;
          break;
        case 10:
          if (bytes && !DecodeDim3(f->data, l.grid)) return Bad("a launch's grid size is not a valid message");
          break;
        case 11:
          if (bytes && !DecodeDim3(f->data, l.block)) return Bad("a launch's block size is not a valid message");
          break;
        case 13:
          if (bytes) KSCOPE_RETURN_IF_ERROR(Metric(f->data));
          break;
        case 19:
          if (bytes) KSCOPE_RETURN_IF_ERROR(Rule(f->data));
          break;
        case 21:
          if (bytes) KSCOPE_RETURN_IF_ERROR(Nvtx(f->data));
          break;
        default: break;
      }
    }
    if (c.failed()) return Bad(fmt::format("launch {} is not a valid message", l.id));
    ++summary_.launches;
    return on_launch_(l);
  }

  Status Metric(std::string_view msg) {
    RepMetric m;
    bool named = false;
    wire::Cursor c(msg);
    while (auto f = c.Next()) {
      if (f->number == 1 && f->type == wire::Type::kVarint) {
        if (f->bits >= strings_.size()) {
          return Bad(fmt::format("a metric names string #{} of a table of {}", f->bits, strings_.size()));
        }
        m.name = strings_[static_cast<size_t>(f->bits)];
        named = true;
      } else if (f->number == 2 && f->type == wire::Type::kBytes) {
        if (!DecodeValue(f->data, m.value)) return Bad("a metric value is not a valid message");
      } else if (f->number == 3 && f->type == wire::Type::kBytes) {
        m.instanced = true;
        if (instances_ == RepInstances::kSkip) continue;
        RepInstance inst;
        wire::Cursor ic(f->data);
        while (auto g = ic.Next()) {
          if (g->type != wire::Type::kBytes) continue;
          if (g->number == 1 && !DecodeValue(g->data, inst.key)) return Bad("a metric instance is not valid");
          if (g->number == 2 && !DecodeValue(g->data, inst.value)) return Bad("a metric instance is not valid");
        }
        if (ic.failed()) return Bad("a metric instance is not a valid message");
        m.instances.push_back(inst);
      }
    }
    if (c.failed() || !named) return Bad("a metric entry is not a valid message");
    launch_.metrics.push_back(std::move(m));
    return Status::Ok();
  }

  // A rule's result: 1 rule id, 4 section id, 3 results; a result's field 1 holds messages
  // (1, repeated: 1 text, 2 type) and the estimated speedup (10: 1 type, 2 percent).
  Status Rule(std::string_view msg) {
    std::string_view rule, section;
    std::vector<std::string_view> results;
    wire::Cursor c(msg);
    while (auto f = c.Next()) {
      if (f->type != wire::Type::kBytes) continue;
      if (f->number == 1) rule = f->data;
      if (f->number == 4) section = f->data;
      if (f->number == 3) results.push_back(f->data);
    }
    if (c.failed()) return Bad("a rule result is not a valid message");
    for (std::string_view result : results) {
      wire::Cursor rc(result);
      while (auto body = rc.Next()) {
        if (body->number != 1 || body->type != wire::Type::kBytes) continue;
        std::vector<std::pair<std::string_view, uint64_t>> messages;
        std::string speedup_type;
        std::optional<double> speedup;
        wire::Cursor bc(body->data);
        while (auto g = bc.Next()) {
          if (g->type != wire::Type::kBytes) continue;
          wire::Cursor mc(g->data);
          if (g->number == 1) {
            std::pair<std::string_view, uint64_t> m{{}, 0};
            while (auto h = mc.Next()) {
              if (h->number == 1 && h->type == wire::Type::kBytes) m.first = h->data;
              if (h->number == 2 && h->type == wire::Type::kVarint) m.second = h->bits;
            }
            messages.push_back(m);
          } else if (g->number == 10) {
            while (auto h = mc.Next()) {
              if (h->number == 1 && h->type == wire::Type::kVarint) {
                speedup_type = h->bits == 1 ? "local" : h->bits == 2 ? "global" : fmt::format("type {}", h->bits);
              }
              if (h->number == 2 && h->type == wire::Type::kFixed64) speedup = h->AsDouble();
            }
          }
          if (mc.failed()) return Bad("a rule message is not a valid message");
        }
        if (bc.failed()) return Bad("a rule result is not a valid message");
        for (const auto& [text, type] : messages) {
          RepRule r;
          r.section = section;
          r.rule = rule;
          r.type = type == 1 ? "INF" : type == 4 ? "OPT" : fmt::format("type {}", type);
          r.text = RenderRuleText(text);
          r.speedup_type = speedup_type;
          r.speedup = speedup;
          launch_.rules.push_back(std::move(r));
        }
      }
      if (rc.failed()) return Bad("a rule result is not a valid message");
    }
    return Status::Ok();
  }

  // The NVTX state at the launch: domains (id, name) and per thread its push/pop stacks.
  Status Nvtx(std::string_view msg) {
    std::vector<std::pair<uint64_t, std::string_view>> domains;
    std::vector<std::string_view> threads;
    wire::Cursor c(msg);
    while (auto f = c.Next()) {
      if (f->type != wire::Type::kBytes) continue;
      if (f->number == 1) {
        std::pair<uint64_t, std::string_view> d{0, {}};
        wire::Cursor dc(f->data);
        while (auto g = dc.Next()) {
          if (g->number == 1 && g->type == wire::Type::kVarint) d.first = g->bits;
          if (g->number == 2 && g->type == wire::Type::kBytes) d.second = g->data;
        }
        if (dc.failed()) return Bad("an NVTX domain is not a valid message");
        domains.push_back(d);
      } else if (f->number == 2) {
        threads.push_back(f->data);
      }
    }
    if (c.failed()) return Bad("a launch's NVTX state is not a valid message");
    for (std::string_view t : threads) KSCOPE_RETURN_IF_ERROR(NvtxThread(t, domains));
    return Status::Ok();
  }

  Status NvtxThread(std::string_view msg, const std::vector<std::pair<uint64_t, std::string_view>>& domains) {
    uint64_t tid = 0;
    std::string ranges;
    wire::Cursor c(msg);
    while (auto f = c.Next()) {
      if (f->number == 1 && f->type == wire::Type::kVarint) tid = f->bits;
      if (f->number != 2 || f->type != wire::Type::kBytes) continue;
      uint64_t domain = 0;
      std::vector<std::string_view> names;
      wire::Cursor sc(f->data);
      while (auto g = sc.Next()) {
        if (g->number == 1 && g->type == wire::Type::kVarint) domain = g->bits;
        if (g->number != 3 || g->type != wire::Type::kBytes) continue;
        wire::Cursor rc(g->data);
        while (auto r = rc.Next()) {
          if (r->number == 1 && r->type == wire::Type::kBytes) names.push_back(r->data);
        }
        if (rc.failed()) return Bad("an NVTX range is not a valid message");
      }
      if (sc.failed()) return Bad("an NVTX range stack is not a valid message");
      std::string_view domain_name;
      for (const auto& [id, name] : domains) {
        if (id == domain) domain_name = name;
      }
      for (std::string_view n : names) {
        ranges += fmt::format("\"{}:{}:none:none:none:none:none:none\" ", domain_name, n);
      }
    }
    if (c.failed()) return Bad("an NVTX thread entry is not a valid message");
    if (ranges.empty()) return Status::Ok();
    if (!launch_.nvtx.empty()) launch_.nvtx += ' ';
    launch_.nvtx += fmt::format("{}  {}", tid, ranges);
    return Status::Ok();
  }

  Source& src_;
  std::string where_;
  const std::function<Status(const RepLaunch&)>& on_launch_;
  RepInstances instances_;
  std::deque<std::string> strings_;  // the string table, growing block by block; stable addresses
  size_t strings_bytes_ = 0;         // their bytes, against kMaxTableStrings
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
