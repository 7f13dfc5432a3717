// Draws every [data-figure] (a plotly figure as JSON) once, on load and after htmx swaps in a submission.
(function () {
  function draw(root) {
    if (!window.Plotly) return;
    root.querySelectorAll("[data-figure]:not([data-drawn])").forEach(function (element) {
      var figure;
      try { figure = JSON.parse(element.getAttribute("data-figure")); } catch (error) { return; }
      element.setAttribute("data-drawn", "");
      var layout = Object.assign({ autosize: true, paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)" },
                                 figure.layout || {});
      window.Plotly.newPlot(element, figure.data || [], layout, { responsive: true, displaylogo: false });
    });
  }
  document.addEventListener("DOMContentLoaded", function () { draw(document); });
  document.addEventListener("htmx:afterSwap", function (event) { draw(event.target); });
})();
