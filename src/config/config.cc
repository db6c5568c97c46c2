#include "config/config.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <variant>

#include "config/config_keys.h"
#include "util/closest.h"

namespace kscope::config {

namespace {

std::vector<std::string> KeyNames() {
  std::vector<std::string> out;
  for (const Key& k : Keys()) out.emplace_back(k.name);
  return out;
}

Error UnknownKey(const std::string& where, const std::string& key) {
  const auto near = Closest(key, KeyNames(), 1);
  return Error{where, "unknown configuration key '" + key + "'",
               near.empty() ? "see docs/config.md" : "did you mean '" + near[0] + "'? (docs/config.md)"};
}

std::string TypeName(const Ref& r) {
  return std::visit(
      [](auto* p) -> std::string {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_same_v<T, std::string>) return "text";
        if constexpr (std::is_same_v<T, double>) return "number";
        if constexpr (std::is_same_v<T, int64_t>) return "integer";
        if constexpr (std::is_same_v<T, std::vector<std::string>>) return "list of text";
        if constexpr (std::is_same_v<T, std::map<std::string, std::string>>) return "map of name to text";
        return "map of name to integer";
      },
      r);
}

Status Set(Config& c, const Key& key, const YAML::Node& node, const std::string& where) {
  Ref ref = key.ref(c);
  auto bad = [&]() {
    return Error{where, fmt::format("{} must be {}", key.name, TypeName(ref)), "see docs/config.md"};
  };
  try {
    if (auto* s = std::get_if<std::string*>(&ref)) {
      if (!node.IsScalar()) return bad();
      std::string v = node.as<std::string>();
      if (!key.choices.empty() && std::find(key.choices.begin(), key.choices.end(), v) == key.choices.end()) {
        std::string allowed;
        for (auto ch : key.choices) allowed += (allowed.empty() ? "" : ", ") + std::string(ch);
        return Error{where, fmt::format("{} is '{}', not one of {}", key.name, v, allowed), "see docs/config.md"};
      }
      **s = std::move(v);
    } else if (auto* d = std::get_if<double*>(&ref)) {
      if (!node.IsScalar()) return bad();
      **d = node.as<double>();
    } else if (auto* i = std::get_if<int64_t*>(&ref)) {
      if (!node.IsScalar()) return bad();
      **i = node.as<int64_t>();
    } else if (auto* l = std::get_if<std::vector<std::string>*>(&ref)) {
      if (node.IsScalar()) {
        **l = {node.as<std::string>()};
      } else if (node.IsSequence()) {
        (*l)->clear();
        for (const auto& e : node) (*l)->push_back(e.as<std::string>());
      } else if (node.IsNull()) {
        (*l)->clear();
      } else {
        return bad();
      }
    } else if (auto* m = std::get_if<std::map<std::string, int64_t>*>(&ref)) {
      if (!node.IsMap()) return bad();
      (*m)->clear();
      for (const auto& e : node) (**m)[e.first.as<std::string>()] = e.second.as<int64_t>();
    } else if (auto* t = std::get_if<std::map<std::string, std::string>*>(&ref)) {
      if (!node.IsMap()) return bad();
      (*t)->clear();
      for (const auto& e : node) (**t)[e.first.as<std::string>()] = e.second.as<std::string>();
    }
  } catch (const YAML::Exception&) {
    return bad();
  }
  return Status::Ok();
}

Status ReadSweep(Config& c, const YAML::Node& node, const std::string& where) {
  if (!node.IsMap()) return Error{where, "sweep must map names to lists of values", "see docs/profile.md"};
  for (const auto& e : node) {
    auto& values = c.sweep[e.first.as<std::string>()];
    values.clear();
    if (e.second.IsSequence()) {
      for (const auto& v : e.second) values.push_back(v.as<std::string>());
    } else {
      values.push_back(e.second.as<std::string>());
    }
  }
  return Status::Ok();
}

Status ReadTree(Config& c, const YAML::Node& node, const std::string& prefix, const std::string& where) {
  for (const auto& e : node) {
    const std::string name = prefix + e.first.as<std::string>();
    if (name == "sweep") {
      KSCOPE_RETURN_IF_ERROR(ReadSweep(c, e.second, where));
    } else if (const Key* k = FindKey(name)) {
      KSCOPE_RETURN_IF_ERROR(Set(c, *k, e.second, where));
      if (k->path) {  // a file named in a configuration file: relative to that file's folder
        auto* value = std::get<std::string*>(k->ref(c));
        if (!value->empty() && std::filesystem::path(*value).is_relative()) {
          *value = (std::filesystem::path(where).parent_path() / *value).lexically_normal().string();
        }
      }
    } else if (e.second.IsMap()) {
      KSCOPE_RETURN_IF_ERROR(ReadTree(c, e.second, name + ".", where));
    } else {
      return UnknownKey(where, name);
    }
  }
  return Status::Ok();
}

YAML::Node ToNode(const Ref& r) {
  return std::visit(
      [](auto* p) -> YAML::Node {
        using T = std::remove_pointer_t<decltype(p)>;
        YAML::Node n;
        if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          n = YAML::Node(YAML::NodeType::Sequence);
          for (const auto& v : *p) n.push_back(v);
        } else if constexpr (std::is_same_v<T, std::map<std::string, int64_t>> ||
                             std::is_same_v<T, std::map<std::string, std::string>>) {
          n = YAML::Node(YAML::NodeType::Map);
          for (const auto& [k, v] : *p) n[k] = v;
        } else {
          n = *p;
        }
        return n;
      },
      r);
}

}  // namespace

Status ApplyOverride(Config& config, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) {
    return Error{"", "override '" + assignment + "' is not KEY=VALUE", "write e.g. ncu.mode=deep"};
  }
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const Key* k = FindKey(key);
  if (k == nullptr) return UnknownKey("", key);
  YAML::Node node;
  try {
    node = YAML::Load(value);
  } catch (const YAML::Exception& e) {
    return Error{"", "override " + key + ": '" + value + "' is not a YAML value (" + e.msg + ")", ""};
  }
  if (node.IsNull() && !value.empty()) node = YAML::Node(value);
  if (node.IsNull() && std::holds_alternative<std::string*>(k->ref(config))) node = YAML::Node(std::string());
  return Set(config, *k, node, "override " + key);
}

Result<Config> LoadConfig(const std::string& path, const std::vector<std::string>& overrides) {
  Config c;
  if (!path.empty()) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path);
    } catch (const YAML::BadFile&) {
      return Error{path, "cannot read the configuration file", "check the path"};
    } catch (const YAML::Exception& e) {
      return Error{path, fmt::format("not valid YAML: {} (line {})", e.msg, e.mark.line + 1),
                   "fix the file (docs/config.md)"};
    }
    if (!root.IsNull()) {
      if (!root.IsMap()) return Error{path, "the configuration must be a YAML mapping", "see docs/config.md"};
      KSCOPE_RETURN_IF_ERROR(ReadTree(c, root, "", path));
    }
  }
  for (const auto& o : overrides) KSCOPE_RETURN_IF_ERROR(ApplyOverride(c, o));
  return c;
}

std::string ToYaml(const Config& config) {
  Config copy = config;
  YAML::Node root(YAML::NodeType::Map);
  for (const Key& k : Keys()) {
    const std::string name(k.name);
    const auto dot = name.find('.');
    root[name.substr(0, dot)][name.substr(dot + 1)] = ToNode(k.ref(copy));
  }
  if (!copy.sweep.empty()) {
    for (const auto& [k, vs] : copy.sweep) {
      YAML::Node seq(YAML::NodeType::Sequence);
      for (const auto& v : vs) seq.push_back(v);
      root["sweep"][k] = seq;
    }
  }
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string KeysMarkdown() {
  Config defaults;
  std::ostringstream md;
  md << "| key | type | default | meaning |\n|---|---|---|---|\n";
  for (const Key& k : Keys()) {
    const Ref r = k.ref(defaults);
    YAML::Emitter e;
    e << YAML::Flow << ToNode(r);
    std::string type = TypeName(r);
    if (!k.choices.empty()) {
      type.clear();
      for (auto ch : k.choices) type += (type.empty() ? "" : " \\| ") + std::string(ch);
    }
    md << "| `" << k.name << "` | " << type << " | `" << e.c_str() << "` | " << k.doc << " |\n";
  }
  return md.str();
}

}  // namespace kscope::config
