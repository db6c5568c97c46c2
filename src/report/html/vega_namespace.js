// What the `vega` package's own index does with its modules: one namespace of all their
// exports, and the transforms of vega-transforms, vega-view-transforms and vega-encode in
// vega-dataflow's registry, where the parser finds them by name.
const vega = Object.assign({}, ...Object.values(kscopeVega.modules));
for (const name of ['vega-transforms', 'vega-view-transforms', 'vega-encode']) {
  Object.assign(kscopeVega.modules['vega-dataflow'].transforms, kscopeVega.modules[name]);
}
// What the page uses, taken from the module that defines it whatever the others export.
vega.View = kscopeVega.modules['vega-view'].View;
vega.parse = kscopeVega.modules['vega-parser'].parse;
vega.logger = kscopeVega.modules['vega-util'].logger;
vega.Warn = kscopeVega.modules['vega-util'].Warn;
