// Draws each result plot with the local plotly, from the figure JSON that follows its <div data-plot>.
(function () {
  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("div[data-plot]:not([data-drawn])").forEach(function (div) {
      var script = div.nextElementSibling;
      if (!script || script.type !== "application/json") return;
      var figure = JSON.parse(script.textContent);
      div.dataset.drawn = "1";
      window.Plotly.newPlot(div, figure.data || [], figure.layout || {}, { responsive: true, displaylogo: false });
    });
  }
  function start() {
    draw(document);
    document.body.addEventListener("htmx:afterSettle", function () { draw(document); });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
