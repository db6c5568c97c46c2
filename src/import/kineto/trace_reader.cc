#include "import/kineto/trace_reader.h"

#include <fmt/format.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <vector>

#include "import/kineto/trace_time.h"

namespace kscope::import::kineto {

namespace {

// Where the handler is in the document.
enum class Frame : uint8_t { kTop, kEvents, kEvent, kArgs, kDevices, kDevice, kDistributed, kCapture, kSkip };

std::optional<Arg> ArgOf(std::string_view key) {
  static constexpr std::array<std::pair<std::string_view, Arg>, static_cast<size_t>(Arg::kCount)> kKeys = {{
      {"correlation", Arg::kCorrelation},
      {"External id", Arg::kExternalId},
      {"device", Arg::kDevice},
      {"context", Arg::kContext},
      {"stream", Arg::kStream},
      {"bytes", Arg::kBytes},
      {"registers per thread", Arg::kRegisters},
      {"Sequence number", Arg::kSequence},
      {"name", Arg::kName},
      {"Input Dims", Arg::kInputDims},
      {"grid", Arg::kGrid},
      {"block", Arg::kBlock},
  }};
  for (const auto& [k, a] : kKeys) {
    if (k == key) return a;
  }
  return std::nullopt;
}

// The SAX handler: a stack of frames, one per open object or array kscope looks into.
class Handler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler> {
 public:
  explicit Handler(TraceSink& sink, TraceInput& input) : sink_(sink), input_(input) {}

  bool StartObject() { return Open(/*object=*/true); }
  bool StartArray() { return Open(/*object=*/false); }
  bool EndObject(rapidjson::SizeType /*members*/) { return Close(); }
  bool EndArray(rapidjson::SizeType /*elements*/) { return Close(); }
  bool Key(const char* s, rapidjson::SizeType n, bool /*copy*/) {
    key_.assign(s, n);
    return true;
  }
  bool String(const char* s, rapidjson::SizeType n, bool /*copy*/) { return Scalar({s, n}, true); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool /*copy*/) { return Scalar({s, n}, false); }
  bool Null() { return Scalar("null", false); }
  bool Bool(bool b) { return Scalar(b ? "true" : "false", false); }

  [[nodiscard]] bool saw_events() const { return saw_events_; }
  [[nodiscard]] bool top_not_object() const { return top_not_object_; }
  Status sink_status;

 private:
  bool Open(bool object);
  bool Close();
  bool Scalar(std::string_view v, bool is_string);
  bool OpenInTop(bool object);
  bool OpenCapture(std::string& into);
  void AppendCaptured(std::string_view text);
  bool Check(const Status& st) {
    if (!st.ok()) sink_status = st;
    return st.ok();
  }

  TraceSink& sink_;
  TraceInput& input_;
  std::vector<Frame> stack_;
  std::string key_;
  TraceEvent event_;
  DeviceProperty device_;
  DistributedInfo distributed_;
  std::string* capture_ = nullptr;   // the argument an array is written into
  std::vector<bool> capture_first_;  // per open array of the capture: no element yet
  int skip_depth_ = 0;
  bool saw_events_ = false, top_not_object_ = false;
};

bool Handler::Open(bool object) {
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
        AppendCaptured("[");
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
  if (!object && key_ == "traceEvents") {
    saw_events_ = true;
    stack_.push_back(Frame::kEvents);
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
  capture_->assign("[");
  capture_first_.assign(1, true);
  stack_.push_back(Frame::kCapture);
  return true;
}

void Handler::AppendCaptured(std::string_view text) {
  if (!capture_first_.back()) capture_->append(", ");
  capture_first_.back() = false;
  capture_->append(text);
}

bool Handler::Close() {
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
      if (key_ == "ph")
        event_.ph.assign(v);
      else if (key_ == "cat")
        event_.cat.assign(v);
      else if (key_ == "name")
        event_.name.assign(v);
      else if (key_ == "pid")
        event_.pid.assign(v);
      else if (key_ == "tid")
        event_.tid.assign(v);
      else if (key_ == "ts" && !is_string)
        event_.ts.assign(v);
      else if (key_ == "dur" && !is_string)
        event_.dur.assign(v);
      return true;
    case Frame::kArgs:
      if (auto a = ArgOf(key_)) event_.args[static_cast<size_t>(*a)].assign(v);
      return true;
    case Frame::kCapture: AppendCaptured(v); return true;
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

Status ReadTrace(TraceInput& input, TraceSink& sink) {
  Handler handler(sink, input);
  rapidjson::Reader reader;
  constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseValidateEncodingFlag |
                              rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;
  const rapidjson::ParseResult ok = reader.Parse<kFlags>(input, handler);
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
