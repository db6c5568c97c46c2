#include "import/kineto/trace_reader.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "import/kineto/trace_time.h"

namespace kscope::import::kineto {

namespace {

// Bounds no profiler's trace comes near (names and arguments stay under a few KB; events nest
// about 7 deep), in line with the nsys and ncu importers' 1 MiB per field: a hostile or
// damaged file is refused with one line instead of filling memory.
constexpr size_t kMaxStringBytes = size_t{1} << 20;  // a string, key, number or captured array
constexpr size_t kMaxNesting = 1000;                 // open objects and arrays
// RapidJSON buffers each string whole on its stack, which grows by half: bounded here at twice
// the string bound (strings between the two are refused by the handler, which sees their length).
constexpr size_t kMaxStackBytes = 2 * kMaxStringBytes + (size_t{64} << 10);

struct StackFull {};  // thrown by BoundedStack, caught by ReadTrace: a string past the bound

// RapidJSON's stack allocator, refusing to grow past kMaxStackBytes (its stack cannot take a
// failed allocation, so the refusal leaves by exception, caught at once in ReadTrace).
class BoundedStack {
 public:
  [[maybe_unused]] static const bool kNeedFree = true;  // RapidJSON's allocator concept reads it
  void* Malloc(size_t size) { return size == 0 ? nullptr : Grow(nullptr, size); }
  void* Realloc(void* p, size_t /*old_size*/, size_t new_size) { return Grow(p, new_size); }
  static void Free(void* p) { std::free(p); }

 private:
  static void* Grow(void* p, size_t size) {
    if (size > kMaxStackBytes) throw StackFull{};
    void* q = std::realloc(p, size);
    if (q == nullptr) throw std::bad_alloc();
    return q;
  }
};

// `opened_at`: the byte of the last '{' or '[' before the string (the event or args holding it).
std::string TooLong(size_t opened_at) {
  return fmt::format(
      "a string longer than {} MiB in the JSON object or array that opens at byte {}, past kscope's "
      "bound for a trace (a profiler's names and arguments stay under a few KB)",
      kMaxStringBytes >> 20, opened_at);
}

// Where the handler is in the document.
enum class Frame : uint8_t { kTop, kEvents, kEvent, kArgs, kDevices, kDevice, kDistributed, kCapture, kSkip };

// The argument a key names, under every spelling Kineto has given it (older ones second;
// docs/kineto/formats.md). Most of an event's arguments are ones kscope does not read: the
// key's length picks the few it could be.
std::optional<Arg> ArgOf(std::string_view key) {
  switch (key.size()) {
    case 4:
      if (key == "name") return Arg::kName;
      if (key == "grid") return Arg::kGrid;
      return std::nullopt;
    case 5:
      if (key == "bytes") return Arg::kBytes;
      if (key == "block") return Arg::kBlock;
      if (key == "dtype") return Arg::kDtype;
      return std::nullopt;
    case 6:
      if (key == "device") return Arg::kDevice;
      if (key == "stream") return Arg::kStream;
      return std::nullopt;
    case 7: return key == "context" ? std::optional(Arg::kContext) : std::nullopt;
    case 8: return key == "inDevice" ? std::optional(Arg::kDevice) : std::nullopt;    // a peer-to-peer copy's
    case 9: return key == "inContext" ? std::optional(Arg::kContext) : std::nullopt;  // device and context
    case 10:
      if (key == "Input Dims" || key == "Input dims") return Arg::kInputDims;  // "Input dims": PyTorch 1.8
      return std::nullopt;
    case 11:
      if (key == "correlation") return Arg::kCorrelation;
      if (key == "External id" || key == "external id") return Arg::kExternalId;  // "external id": to 1.10
      return std::nullopt;
    case 13: return key == "In msg nelems" ? std::optional(Arg::kInNelems) : std::nullopt;
    case 14: return key == "Out msg nelems" ? std::optional(Arg::kOutNelems) : std::nullopt;
    case 15: return key == "Sequence number" ? std::optional(Arg::kSequence) : std::nullopt;
    case 20: return key == "registers per thread" ? std::optional(Arg::kRegisters) : std::nullopt;
    default: return std::nullopt;
  }
}

// The event field a key names: the string an event's scalar goes into, or null for a field
// kscope does not read. `ts` and `dur` only as numbers.
std::string* EventField(TraceEvent& e, std::string_view key, bool is_string) {
  switch (key.size()) {
    case 2:
      if (key == "ph") return &e.ph;
      if (key == "ts" && !is_string) return &e.ts;
      return nullptr;
    case 3:
      if (key == "cat") return &e.cat;
      if (key == "pid") return &e.pid;
      if (key == "tid") return &e.tid;
      if (key == "dur" && !is_string) return &e.dur;
      return nullptr;
    case 4: return key == "name" ? &e.name : nullptr;
    default: return nullptr;
  }
}

// The SAX handler: a stack of frames, one per open object or array kscope looks into.
class Handler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler> {
 public:
  Handler(TraceSink& sink, TraceInput& input, ReadMode mode) : sink_(sink), input_(input), mode_(mode) {}

  bool StartObject() { return Open(/*object=*/true); }
  bool StartArray() { return Open(/*object=*/false); }
  bool EndObject(rapidjson::SizeType /*members*/) { return Close(); }
  bool EndArray(rapidjson::SizeType /*elements*/) { return Close(); }
  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    if (!Bounded(n)) return false;
    if (n <= key_buf_.size()) {  // a trace's keys are short: copied without a std::string
      std::memcpy(key_buf_.data(), s, n);
      key_ = {key_buf_.data(), n};
    } else {
      long_key_.assign(s, n);
      key_ = long_key_;
    }
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) { return Bounded(n) && Scalar({s, n}, true); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) { return Bounded(n) && Scalar({s, n}, false); }
  bool Null() { return Scalar("null", false); }
  bool Bool(bool b) { return Scalar(b ? "true" : "false", false); }

  [[nodiscard]] bool saw_events() const { return saw_events_; }
  [[nodiscard]] bool top_not_object() const { return top_not_object_; }
  Status sink_status;
  std::string bound_error;  // a string or nesting past kscope's bounds
  [[nodiscard]] size_t opened_at() const { return opened_at_; }

 private:
  // Whether a string of `bytes` is within the bound; else the error names where it opens.
  bool Bounded(size_t bytes, size_t opened_at) {
    if (bytes <= kMaxStringBytes) return true;
    bound_error = TooLong(opened_at);
    return false;
  }
  bool Bounded(size_t bytes) { return Bounded(bytes, opened_at_); }
  bool Open(bool object);
  bool Close();
  bool Scalar(std::string_view v, bool is_string);
  bool OpenInTop(bool object);
  bool OpenCapture(std::string& into);
  bool AppendCaptured(std::string_view text);
  bool Check(const Status& st) {
    if (!st.ok()) sink_status = st;
    return st.ok();
  }

  TraceSink& sink_;
  TraceInput& input_;
  std::vector<Frame> stack_;
  std::string_view key_;            // the last key read (in key_buf_ or long_key_)
  std::array<char, 64> key_buf_{};  // (RapidJSON's own copy is gone before its value comes)
  std::string long_key_;
  TraceEvent event_;
  DeviceProperty device_;
  DistributedInfo distributed_;
  std::string* capture_ = nullptr;   // the argument an array is written into
  std::vector<bool> capture_first_;  // per open array of the capture: no element yet
  int skip_depth_ = 0;
  size_t opened_at_ = 0;   // byte of the last '{' or '[' read
  size_t depth_ = 0;       // objects and arrays open
  size_t capture_at_ = 0;  // byte of the '[' of the array being captured
  bool saw_events_ = false, top_not_object_ = false;
  ReadMode mode_;
};

bool Handler::Open(bool object) {
  opened_at_ = input_.Tell();  // RapidJSON calls StartObject before it takes the "{"
  if (++depth_ > kMaxNesting) {
    bound_error = fmt::format(
        "objects and arrays nested more than {} deep at byte {}, past kscope's bound for a "
        "trace (a profiler's events nest about 7 deep)",
        kMaxNesting, opened_at_);
    return false;
  }
  if (stack_.empty()) {
    if (!object) top_not_object_ = true;
    stack_.push_back(Frame::kTop);
    return object;
  }
  switch (stack_.back()) {
    case Frame::kTop: return OpenInTop(object);
    case Frame::kEvents:
      if (object) {
        event_.ph.clear(), event_.cat.clear(), event_.name.clear(), event_.pid.clear(), event_.tid.clear();
        event_.ts.clear(), event_.dur.clear();
        for (auto& a : event_.args) a.clear();
        stack_.push_back(Frame::kEvent);
        return true;
      }
      break;
    case Frame::kEvent:
      if (object && key_ == "args") {
        stack_.push_back(Frame::kArgs);
        return true;
      }
      break;
    case Frame::kArgs:
      if (!object) {
        auto a = ArgOf(key_);
        if (a == Arg::kInputDims || a == Arg::kGrid || a == Arg::kBlock) {
          return OpenCapture(event_.args[static_cast<size_t>(*a)]);
        }
      }
      break;
    case Frame::kDevices:
      if (object) {
        device_ = DeviceProperty();
        stack_.push_back(Frame::kDevice);
        return true;
      }
      break;
    case Frame::kCapture:
      if (!object) {
        if (!AppendCaptured("[")) return false;
        capture_first_.push_back(true);
        return true;
      }
      break;
    case Frame::kSkip: ++skip_depth_; return true;
    case Frame::kDevice:
    case Frame::kDistributed: break;
  }
  // Anything else is skipped whole, as it streams by.
  if (stack_.back() == Frame::kCapture) capture_->clear();  // an object inside an array kscope reads
  stack_.push_back(Frame::kSkip);
  skip_depth_ = 1;
  return true;
}

bool Handler::OpenInTop(bool object) {
  if (!object && key_ == "traceEvents" && mode_ == ReadMode::kWhole) {
    saw_events_ = true;
    stack_.push_back(Frame::kEvents);
    return Check(sink_.OnEventsBegin());
  }
  if (!object && key_ == "traceEvents") {  // ReadMode::kHeader: passed over
    saw_events_ = true;
    stack_.push_back(Frame::kSkip);
    skip_depth_ = 1;
  } else if (!object && key_ == "deviceProperties") {
    stack_.push_back(Frame::kDevices);
  } else if (object && key_ == "distributedInfo") {
    distributed_ = DistributedInfo();
    stack_.push_back(Frame::kDistributed);
  } else {
    stack_.push_back(Frame::kSkip);
    skip_depth_ = 1;
  }
  return true;
}

bool Handler::OpenCapture(std::string& into) {
  capture_ = &into;
  capture_at_ = opened_at_;
  capture_->assign("[");
  capture_first_.assign(1, true);
  stack_.push_back(Frame::kCapture);
  return true;
}

bool Handler::AppendCaptured(std::string_view text) {
  if (!Bounded(capture_->size() + text.size(), capture_at_)) return false;
  if (!capture_first_.back()) capture_->append(", ");
  capture_first_.back() = false;
  capture_->append(text);
  return true;
}

bool Handler::Close() {
  --depth_;
  const Frame f = stack_.back();
  switch (f) {
    case Frame::kSkip:
      if (--skip_depth_ > 0) return true;
      break;
    case Frame::kCapture:
      capture_->push_back(']');
      capture_first_.pop_back();
      if (!capture_first_.empty()) return true;
      break;
    case Frame::kEvent:
      event_.offset = input_.Tell();
      stack_.pop_back();
      return Check(sink_.OnEvent(event_));
    case Frame::kDevice: stack_.pop_back(); return Check(sink_.OnDevice(device_));
    case Frame::kDistributed: stack_.pop_back(); return Check(sink_.OnDistributed(distributed_));
    default: break;
  }
  stack_.pop_back();
  return true;
}

bool Handler::Scalar(std::string_view v, bool is_string) {
  if (stack_.empty()) {
    top_not_object_ = true;
    return false;
  }
  switch (stack_.back()) {
    case Frame::kTop: return Check(sink_.OnTopLevel(key_, v));
    case Frame::kEvent:
      if (std::string* field = EventField(event_, key_, is_string)) field->assign(v);
      return true;
    case Frame::kArgs:
      if (auto a = ArgOf(key_)) event_.args[static_cast<size_t>(*a)].assign(v);
      return true;
    case Frame::kCapture: return AppendCaptured(v);
    case Frame::kDevice: {
      if (key_ == "name") device_.name.assign(v);
      const auto n = is_string ? std::nullopt : ParseInteger(v);
      if (key_ == "id")
        device_.id = n;
      else if (key_ == "totalGlobalMem")
        device_.total_memory = n;
      else if (key_ == "computeMajor")
        device_.compute_major = n;
      else if (key_ == "computeMinor")
        device_.compute_minor = n;
      else if (key_ == "numSms")
        device_.sms = n;
      return true;
    }
    case Frame::kDistributed:
      if (key_ == "rank" && !is_string)
        distributed_.rank = ParseInteger(v);
      else if (key_ == "world_size" && !is_string)
        distributed_.world_size = ParseInteger(v);
      else if (key_ == "backend")
        distributed_.backend.assign(v);
      else if (key_ == "nccl_version")
        distributed_.nccl_version.assign(v);
      return true;
    default: return true;
  }
}

}  // namespace

Status ReadTrace(TraceInput& input, TraceSink& sink, ReadMode mode) {
  Handler handler(sink, input, mode);
  BoundedStack stack;
  rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, BoundedStack> reader(&stack);
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;
  const std::string refused = "the file is damaged or not a trace: record or copy it again";
  rapidjson::ParseResult ok;
  try {
    ok = reader.Parse<kFlags>(input, handler);
  } catch (const StackFull&) {
    return Error{"", TooLong(handler.opened_at()), refused};
  }
  if (!handler.bound_error.empty()) return Error{"", handler.bound_error, refused};
  // Corrupt deflate data can inflate to text before zlib notices: when the JSON fails in a
  // gzip file, the rest is inflated too, so that a damaged gzip stream is named as such.
  if (!ok && input.gzip()) {
    while (input.error().empty() && !input.at_end()) input.Take();
  }
  if (!input.error().empty()) return Error{"", input.error(), "copy the trace again; check it with gzip -t"};
  if (!handler.sink_status.ok()) return handler.sink_status;
  const std::string not_trace = "not a PyTorch profiler (Kineto) trace: ";
  const std::string fix = "export one with torch.profiler: prof.export_chrome_trace(\"trace.json\")";
  if (handler.top_not_object()) return Error{"", not_trace + "its JSON is not an object", fix};
  if (!ok) {
    const size_t at = ok.Offset();
    if (ok.Code() == rapidjson::kParseErrorDocumentEmpty) return Error{"", "holds no JSON text", fix};
    if (ok.Code() == rapidjson::kParseErrorStringInvalidEncoding) {
      return Error{"", fmt::format("not valid UTF-8 (byte {} of the JSON text)", at),
                   "the file is damaged or not a trace: record or copy it again"};
    }
    if (input.at_end()) {
      return Error{"", fmt::format("the JSON ends early, at byte {} (the file is cut short)", at),
                   "copy the trace again, or record it again and let the profiler finish writing"};
    }
    return Error{"", fmt::format("malformed JSON at byte {} ({})", at, rapidjson::GetParseError_En(ok.Code())),
                 "the file is damaged or not a trace: record or copy it again"};
  }
  if (!handler.saw_events()) return Error{"", not_trace + "it has no traceEvents array", fix};
  return Status::Ok();
}

}  // namespace kscope::import::kineto
