// The table of configuration keys: each key once, with its meaning, its allowed values and
// where it lives in Config. Defaults are the member initializers of the layers' option structs.
// config.cc reads YAML files and KEY=VALUE overrides into Config through this table.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "config/config.h"

namespace kscope::config {

// Where a key's value lives in a Config, by its type.
using Ref = std::variant<std::string*, double*, int64_t*, std::vector<std::string>*, std::map<std::string, int64_t>*,
                         std::map<std::string, std::string>*>;

struct Key {
  std::string_view name;
  std::string_view doc;
  std::vector<std::string_view> choices;  // allowed values of a string key; empty: any
  Ref (*ref)(Config&);
  bool path = false;  // a file: relative to the configuration file that names it
};

// Every configuration key, in the order docs/config.md lists them.
const std::vector<Key>& Keys();

// The key called `name`, or nullptr.
const Key* FindKey(std::string_view name);

}  // namespace kscope::config
