#!/bin/bash
# link.sh BUILD_DIR OUT: the import driver over one static-release build's layer libraries
B=$1
g++ -std=c++20 -O3 -DNDEBUG -DFMT_HEADER_ONLY=1 -I$B/layers/import -I$B/layers/analysis -I$B/layers/store -I$B/layers/util -I$B/layers/tools \
  /tmp/trace_bench/import_driver.cc -o $2 \
  $B/src/import/libkscope_import.a /usr/lib/x86_64-linux-gnu/libcsv.a $B/src/analysis/libkscope_analysis.a $B/src/store/libkscope_store.a \
  $B/src/tools/libkscope_tools.a $B/src/util/libkscope_util.a /usr/lib/x86_64-linux-gnu/libsqlite3.a /usr/lib/x86_64-linux-gnu/libyaml-cpp.a \
  /usr/lib/x86_64-linux-gnu/libzstd.a /usr/lib/x86_64-linux-gnu/libz.a -lm -lpthread -static-libstdc++ -static-libgcc
