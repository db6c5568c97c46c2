// One result message of an .ncu-rep block, that is one profiled launch, decoded into a
// RepLaunch: its kernel's three names, grid and block, metrics (with their instance values when
// asked), rule messages and NVTX state. rep_reader.cc reads the container (file header, blocks,
// string tables) and hands each result message here; docs/ncu-rep.md describes the fields.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "import/ncu/rep_reader.h"
#include "util/status.h"

namespace kscope::import::ncu {

class RepLaunchDecoder {
 public:
  // An error saying what is wrong, placed where the reader stands in the file.
  using BadFn = std::function<Error(const std::string& what)>;

  // `strings`: the string tables read so far (metrics name their entries by index).
  RepLaunchDecoder(const std::deque<std::string>& strings, RepInstances instances, BadFn bad)
      : strings_(strings), instances_(instances), bad_(std::move(bad)) {}

  // Fills the fields the message holds into `launch` (cleared first); its id, process and host
  // come from the block and are the caller's. Views point into `msg` and the string tables.
  Status Decode(std::string_view msg, RepLaunch& launch);

 private:
  Status Metric(std::string_view msg);
  Status Rule(std::string_view msg);
  Status Nvtx(std::string_view msg);
  Status NvtxThread(std::string_view msg, const std::vector<std::pair<uint64_t, std::string_view>>& domains);

  const std::deque<std::string>& strings_;
  RepInstances instances_;
  BadFn bad_;
  RepLaunch* launch_ = nullptr;  // the launch being decoded
};

}  // namespace kscope::import::ncu
