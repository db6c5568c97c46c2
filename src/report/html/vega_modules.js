// Loads Debian's Vega modules (libjs-vega) into this page. Each module is a UMD build whose
// browser fallback is unusable (every module replaces the global `vega` with a fresh object
// and reads its dependencies from it), so each one runs through its CommonJS branch instead:
// kscopeVegaModule gives it `exports`, `module` and a `require` that returns the exports of a
// module defined before it.
const kscopeVega = {modules: {}};

function kscopeVegaModule(name, factory) {
  const aliases = {'vega-selections': 'vega-selection'};  // vega-functions' name for it
  const require = (dependency) => {
    const found = kscopeVega.modules[aliases[dependency] || dependency];
    if (!found) throw new Error(`Vega module ${name} needs ${dependency}, which is not embedded`);
    return found;
  };
  const module = {exports: {}};
  factory.call(module.exports, module.exports, module, require);
  kscopeVega.modules[name] = module.exports;
}
