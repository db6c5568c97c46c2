// A store holding the devset's Llama nsys export as one run, made once per test suite, for the
// selection tests; Starts gives the kernel start times of discovery rows, to compare with SQL.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "import/import_files.h"
#include "store/event_reader.h"
#include "store/event_streams.h"
#include "store/store.h"
#include "test_support.h"
#include "util/sqlite.h"

namespace kscope::testing {

class LlamaStore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto s = store::Store::Open(":memory:", sql::OpenMode::kCreate);
    ASSERT_TRUE(s.ok());
    store_ = new store::Store(std::move(s).value());
    auto out = import::ImportFiles(*store_, {NsysData("llama.sqlite")}, {});
    ASSERT_TRUE(out.ok()) << out.error().Line();
    run_ = out->front().run_id;
  }
  static void TearDownTestSuite() {
    delete store_;
    store_ = nullptr;
  }
  // The start times of kernel rows `rows` of the run, sorted.
  static std::vector<int64_t> Starts(const std::vector<int64_t>& rows) {
    auto cols = store::ReadColumns(store_->db(), run_, store::kKernelStream, {store::kernel::kStart});
    std::vector<int64_t> out;
    for (int64_t r : rows) out.push_back((*cols)[0][static_cast<size_t>(r)]);
    std::sort(out.begin(), out.end());
    return out;
  }
  static inline store::Store* store_ = nullptr;
  static inline int64_t run_ = 0;
};

}  // namespace kscope::testing
