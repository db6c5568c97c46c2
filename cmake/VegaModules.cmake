# The Vega modules report.html runs, built into kscope from Debian's libjs-vega
# (src/CMakeLists.txt; the tests compare them with the package's files): the core of Vega 5
# without the geographic, hierarchy, force, label, regression, voronoi and word-cloud
# transforms, each module after those it requires (the page runs them in this order).
set(KSCOPE_VEGA_SOURCE_DIR /usr/share/javascript/vega CACHE PATH
  "Folder with Vega 5's vega-*.min.js modules (Debian's libjs-vega) to build into kscope")
set(KSCOPE_VEGA_MODULES
  vega-util vega-time vega-format vega-loader vega-canvas vega-scale vega-dataflow vega-scenegraph vega-expression
  vega-event-selector vega-statistics vega-selection vega-functions vega-runtime vega-view vega-parser vega-encode
  vega-transforms vega-view-transforms)
