// The fields of a run directory's manifest.json that kscope profile writes, each with its JSON
// type. kscope import DIR checks every field present against it, so that a manifest edited or
// damaged by hand is refused naming the field, instead of a field of another type being read
// as absent. Fields a manifest lacks (an older kscope's) and fields kscope does not know (a
// newer one's) pass.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "util/status.h"

namespace kscope::capture {

Status CheckManifestFields(const nlohmann::json& manifest, const std::string& path);

}  // namespace kscope::capture
