// The lab page's custom-input box: editing the input ticks "Run on this input", so the next Run uses it.
(function () {
  const box = document.getElementById("custom-input-text");
  const use = document.getElementById("use-custom-input");
  if (!box || !use) return;
  box.addEventListener("input", () => { use.checked = true; });
})();
