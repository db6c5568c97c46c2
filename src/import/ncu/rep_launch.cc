#include "import/ncu/rep_launch.h"

#include <fmt/format.h>

#include <bit>

#include "import/ncu/rep_wire.h"

namespace kscope::import::ncu {

namespace {

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

}  // namespace

Status RepLaunchDecoder::Decode(std::string_view msg, RepLaunch& l) {
  launch_ = &l;
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
        if (bytes && !DecodeDim3(f->data, l.grid)) return bad_("a launch's grid size is not a valid message");
        break;
      case 11:
        if (bytes && !DecodeDim3(f->data, l.block)) return bad_("a launch's block size is not a valid message");
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
  if (c.failed()) return bad_(fmt::format("launch {} is not a valid message", l.id));
  return Status::Ok();
}

Status RepLaunchDecoder::Metric(std::string_view msg) {
  RepMetric m;
  bool named = false;
  wire::Cursor c(msg);
  while (auto f = c.Next()) {
    if (f->number == 1 && f->type == wire::Type::kVarint) {
      if (f->bits >= strings_.size()) {
        return bad_(fmt::format("a metric names string #{} of a table of {}", f->bits, strings_.size()));
      }
      m.name = strings_[static_cast<size_t>(f->bits)];
      named = true;
    } else if (f->number == 2 && f->type == wire::Type::kBytes) {
      if (!DecodeValue(f->data, m.value)) return bad_("a metric value is not a valid message");
    } else if (f->number == 3 && f->type == wire::Type::kBytes) {
      m.instanced = true;
      if (instances_ == RepInstances::kSkip) continue;
      RepInstance inst;
      wire::Cursor ic(f->data);
      while (auto g = ic.Next()) {
        if (g->type != wire::Type::kBytes) continue;
        if (g->number == 1 && !DecodeValue(g->data, inst.key)) return bad_("a metric instance is not valid");
        if (g->number == 2 && !DecodeValue(g->data, inst.value)) return bad_("a metric instance is not valid");
      }
      if (ic.failed()) return bad_("a metric instance is not a valid message");
      m.instances.push_back(inst);
    }
  }
  if (c.failed() || !named) return bad_("a metric entry is not a valid message");
  launch_->metrics.push_back(std::move(m));
  return Status::Ok();
}

// A rule's result: 1 rule id, 4 section id, 3 results; a result's field 1 holds messages
// (1, repeated: 1 text, 2 type) and the estimated speedup (10: 1 type, 2 percent).
Status RepLaunchDecoder::Rule(std::string_view msg) {
  std::string_view rule, section;
  std::vector<std::string_view> results;
  wire::Cursor c(msg);
  while (auto f = c.Next()) {
    if (f->type != wire::Type::kBytes) continue;
    if (f->number == 1) rule = f->data;
    if (f->number == 4) section = f->data;
    if (f->number == 3) results.push_back(f->data);
  }
  if (c.failed()) return bad_("a rule result is not a valid message");
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
        if (mc.failed()) return bad_("a rule message is not a valid message");
      }
      if (bc.failed()) return bad_("a rule result is not a valid message");
      for (const auto& [text, type] : messages) {
        RepRule r;
        r.section = section;
        r.rule = rule;
        r.type = type == 1 ? "INF" : type == 4 ? "OPT" : fmt::format("type {}", type);
        r.text = RenderRuleText(text);
        r.speedup_type = speedup_type;
        r.speedup = speedup;
        launch_->rules.push_back(std::move(r));
      }
    }
    if (rc.failed()) return bad_("a rule result is not a valid message");
  }
  return Status::Ok();
}

// The NVTX state at the launch: domains (id, name) and per thread its push/pop stacks.
Status RepLaunchDecoder::Nvtx(std::string_view msg) {
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
      if (dc.failed()) return bad_("an NVTX domain is not a valid message");
      domains.push_back(d);
    } else if (f->number == 2) {
      threads.push_back(f->data);
    }
  }
  if (c.failed()) return bad_("a launch's NVTX state is not a valid message");
  for (std::string_view t : threads) KSCOPE_RETURN_IF_ERROR(NvtxThread(t, domains));
  return Status::Ok();
}

Status RepLaunchDecoder::NvtxThread(std::string_view msg,
                                    const std::vector<std::pair<uint64_t, std::string_view>>& domains) {
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
      if (rc.failed()) return bad_("an NVTX range is not a valid message");
    }
    if (sc.failed()) return bad_("an NVTX range stack is not a valid message");
    std::string_view domain_name;
    for (const auto& [id, name] : domains) {
      if (id == domain) domain_name = name;
    }
    for (std::string_view n : names) {
      ranges += fmt::format("\"{}:{}:none:none:none:none:none:none\" ", domain_name, n);
    }
  }
  if (c.failed()) return bad_("an NVTX thread entry is not a valid message");
  if (ranges.empty()) return Status::Ok();
  if (!launch_->nvtx.empty()) launch_->nvtx += ' ';
  launch_->nvtx += fmt::format("{}  {}", tid, ranges);
  return Status::Ok();
}

}  // namespace kscope::import::ncu
