// Draws each plot with the bundled plotly: a <div data-plot> followed by the figure as JSON in a json_script
// (templates/_plot.html). Runs on load and after every htmx swap settles; a drawn plot is marked and left alone.
(function () {
  function figureAfter(div) {
    var script = div.nextElementSibling;
    if (!script || script.type !== "application/json") return null;
    try { return JSON.parse(script.textContent) || {}; } catch (error) { return null; }
  }
  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("div[data-plot]:not([data-drawn])").forEach(function (div) {
      var figure = figureAfter(div);
      if (!figure) return;
      div.dataset.drawn = "1";
      window.Plotly.newPlot(div, figure.data || [], figure.layout || {}, { responsive: true, displaylogo: false });
    });
  }
  function start() {
    draw(document);
    document.addEventListener("htmx:afterSettle", function () { draw(document); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
