#include "capture/run_dir.h"

#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <memory>
#include <string_view>

#include "util/atomic_file.h"

namespace kscope::capture {

namespace fs = std::filesystem;

Result<RunDir> MakeRunDir(const std::string& runs_dir, int64_t run_id) {
  RunDir d{fs::path(runs_dir) / std::to_string(run_id)};
  std::error_code ec;
  if (fs::exists(d.root, ec)) {
    return Error{d.root.string(), "a run directory with this run id exists already (from another database?)",
                 "move it away or set profile.runs_dir to another folder"};
  }
  for (const auto& p : {d.nsys(), d.ncu(), d.logs()}) {
    fs::create_directories(p, ec);
    if (ec) return Error{p.string(), "cannot create the run directory: " + ec.message(), "check profile.runs_dir"};
  }
  return d;
}

nlohmann::json RunDescription(const store::Manifest& m) {
  nlohmann::json j = nlohmann::json::object();
  for (auto [key, value] : {std::pair{"label", &m.label}, {"model", &m.model}, {"dtype", &m.dtype}}) {
    if (*value) j[key] = **value;
  }
  if (m.batch) j["batch"] = *m.batch;
  if (m.tokens) j["tokens"] = *m.tokens;
  j["tags"] = m.tags;
  return j;
}

store::Manifest RunDescriptionFromJson(const nlohmann::json& j) {
  store::Manifest m;
  if (!j.is_object()) return m;
  for (auto [key, value] : {std::pair{"label", &m.label}, {"model", &m.model}, {"dtype", &m.dtype}}) {
    if (j.contains(key) && j[key].is_string()) *value = j[key].get<std::string>();
  }
  if (j.contains("batch") && j["batch"].is_number_integer()) m.batch = j["batch"].get<int64_t>();
  if (j.contains("tokens") && j["tokens"].is_number_integer()) m.tokens = j["tokens"].get<int64_t>();
  if (j.contains("tags") && j["tags"].is_object()) {
    for (const auto& [k, v] : j["tags"].items()) {
      if (v.is_string()) m.tags[k] = v.get<std::string>();
    }
  }
  return m;
}

Status WriteManifest(const RunDir& dir, const nlohmann::json& manifest) {
  return WriteFileAtomically(dir.manifest(), manifest.dump(2) + "\n");
}

Status CompressFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{path.string(), "cannot compress: the file cannot be read", ""};
  Result<AtomicFile> out = AtomicFile::Create(path.string() + ".zst");
  if (!out.ok()) return out.error();
  std::unique_ptr<ZSTD_CCtx, decltype(&ZSTD_freeCCtx)> cctx(ZSTD_createCCtx(), &ZSTD_freeCCtx);
  ZSTD_CCtx_setParameter(cctx.get(), ZSTD_c_compressionLevel, 10);
  std::error_code size_ec;
  const auto size = fs::file_size(path, size_ec);
  if (!size_ec) ZSTD_CCtx_setPledgedSrcSize(cctx.get(), size);  // the frame records it
  std::vector<char> ibuf(ZSTD_CStreamInSize()), obuf(ZSTD_CStreamOutSize());
  bool last = false;
  while (!last) {
    in.read(ibuf.data(), static_cast<std::streamsize>(ibuf.size()));
    const auto got = static_cast<size_t>(in.gcount());
    last = got < ibuf.size();
    ZSTD_inBuffer input{ibuf.data(), got, 0};
    bool done = false;
    while (!done) {
      ZSTD_outBuffer output{obuf.data(), obuf.size(), 0};
      const size_t rem = ZSTD_compressStream2(cctx.get(), &output, &input, last ? ZSTD_e_end : ZSTD_e_continue);
      if (ZSTD_isError(rem)) return Error{path.string(), std::string("zstd: ") + ZSTD_getErrorName(rem), ""};
      KSCOPE_RETURN_IF_ERROR(out->Write(std::string_view(obuf.data(), output.pos)));
      done = last ? rem == 0 : input.pos == input.size;
    }
  }
  if (in.bad()) return Error{path.string(), "cannot compress: reading the file failed", ""};
  KSCOPE_RETURN_IF_ERROR(out->Commit());
  in.close();
  std::error_code ec;
  fs::remove(path, ec);
  return Status::Ok();
}

Status DecompressFile(const fs::path& from, const fs::path& to) {
  std::ifstream in(from, std::ios::binary);
  if (!in) return Error{from.string(), "cannot decompress: the file cannot be read", "check its permissions"};
  Result<AtomicFile> out = AtomicFile::Create(to.string());
  if (!out.ok()) return out.error();
  std::unique_ptr<ZSTD_DCtx, decltype(&ZSTD_freeDCtx)> dctx(ZSTD_createDCtx(), &ZSTD_freeDCtx);
  std::vector<char> ibuf(ZSTD_DStreamInSize()), obuf(ZSTD_DStreamOutSize());
  size_t pending = 0;  // what the last frame still expects; 0 at a frame's end
  bool any = false;
  while (in) {
    in.read(ibuf.data(), static_cast<std::streamsize>(ibuf.size()));
    ZSTD_inBuffer input{ibuf.data(), static_cast<size_t>(in.gcount()), 0};
    any = any || input.size > 0;
    while (input.pos < input.size) {
      ZSTD_outBuffer output{obuf.data(), obuf.size(), 0};
      pending = ZSTD_decompressStream(dctx.get(), &output, &input);
      if (ZSTD_isError(pending)) {
        return Error{from.string(), std::string("not a readable zstd file: ") + ZSTD_getErrorName(pending),
                     "compress it again with zstd, or use the uncompressed file"};
      }
      KSCOPE_RETURN_IF_ERROR(out->Write(std::string_view(obuf.data(), output.pos)));
    }
  }
  if (in.bad()) return Error{from.string(), "cannot decompress: reading the file failed", "check the disk"};
  if (!any || pending != 0) {
    return Error{from.string(), "the zstd file is truncated", "copy it again from where the run was made"};
  }
  return out->Commit();
}

Result<std::vector<std::pair<int64_t, fs::path>>> RunDirsIn(const fs::path& runs_dir) {
  std::vector<std::pair<int64_t, fs::path>> runs;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(runs_dir, ec)) {
    const std::string name = e.path().filename().string();
    int64_t id = 0;
    auto [p, err] = std::from_chars(name.data(), name.data() + name.size(), id);
    std::error_code dir_ec;
    if (err == std::errc() && p == name.data() + name.size() && e.is_directory(dir_ec)) runs.emplace_back(id, e.path());
  }
  if (ec) {
    return Error{runs_dir.string(), "cannot list the folder: " + ec.message(), "check the path and its permissions"};
  }
  std::sort(runs.begin(), runs.end());
  return runs;
}

Result<std::vector<std::string>> ApplyRetention(const std::string& runs_dir, int64_t keep, const std::string& policy) {
  std::vector<std::string> done;
  if (policy == "keep") return done;
  auto listed = RunDirsIn(runs_dir);
  if (!listed.ok()) return done;  // no runs folder yet: nothing to keep or compress
  const auto& runs = *listed;
  std::error_code ec;
  const auto old = static_cast<int64_t>(runs.size()) - std::max<int64_t>(keep, 0);
  for (int64_t i = 0; i < old; ++i) {
    const fs::path& dir = runs[static_cast<size_t>(i)].second;
    if (policy == "delete") {
      fs::remove_all(dir, ec);
      if (ec) return Error{dir.string(), "cannot delete an old run directory: " + ec.message(), ""};
      done.push_back("deleted " + dir.string());
      continue;
    }
    int64_t compressed = 0;
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir, ec)) {
      if (e.is_regular_file() && e.path().extension() != ".zst") files.push_back(e.path());
    }
    for (const auto& f : files) {
      KSCOPE_RETURN_IF_ERROR(CompressFile(f));
      ++compressed;
    }
    if (compressed > 0) done.push_back("compressed " + std::to_string(compressed) + " files in " + dir.string());
  }
  return done;
}

}  // namespace kscope::capture
