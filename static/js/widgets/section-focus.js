// After htmx swaps in a new section or a read status, move focus there, so keyboard and
// screen-reader users are not left on a button or link that no longer exists.
function focusOn(element, preventScroll) {
  if (!element) return;
  element.setAttribute("tabindex", "-1");
  element.focus({ preventScroll });
}

document.addEventListener("htmx:afterSettle", (event) => {
  const id = event.detail.target && event.detail.target.id;
  if (id === "section-panel") focusOn(document.querySelector("#section-panel h1"), true);
  if (id === "read-status") focusOn(document.querySelector("#read-status"), true);
});
