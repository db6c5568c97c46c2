// Draws every chart whose container waits for one (data-state="pending") from the report
// embedded in the page, with Vega's SVG renderer. Each container ends "rendered", or
// "failed" when Vega threw or logged an error while drawing it (the error goes to the
// console); the page's root gets data-charts="done" when all have ended, which is what the
// browser test waits for.
(() => {
  const report = JSON.parse(document.getElementById('kscope-report').textContent);
  const fail = (container, error) => {
    container.dataset.state = 'failed';
    console.error(`chart ${container.dataset.chart}: ${error}`);
  };
  const draw = (container) => {
    try {
      const errors = [];
      const logger = vega.logger(vega.Warn);
      const logError = logger.error;
      logger.error = (...args) => {
        errors.push(args.join(' '));
        return logError(...args);
      };
      const spec = kscopeCharts[container.dataset.chart](report);
      const view = new vega.View(vega.parse(spec), {
        renderer: 'svg', container: container.querySelector('.chart-canvas'), hover: true, logger,
      });
      return view.runAsync().then(() => {
        if (errors.length) {
          fail(container, errors[0]);
        } else {
          container.dataset.state = 'rendered';
        }
      }, (error) => fail(container, error));
    } catch (error) {
      fail(container, error);
      return Promise.resolve();
    }
  };
  const pending = [...document.querySelectorAll('[data-chart][data-state="pending"]')];
  Promise.all(pending.map(draw)).then(() => { document.documentElement.dataset.charts = 'done'; });
})();
