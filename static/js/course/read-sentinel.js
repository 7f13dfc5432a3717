// Records a section as read when the learner scrolls to its end: an IntersectionObserver watches a
// sentinel after the prose and POSTs once through htmx (the same endpoint as the "Mark section read"
// button, so the table of contents and the module progress update the same way). A section that fits
// on one screen never scrolls, so there the button stays the way to record it.
function watch(sentinel) {
  if (sentinel.dataset.watched || !("IntersectionObserver" in window) || !window.htmx) return;
  sentinel.dataset.watched = "1";
  const observer = new IntersectionObserver((entries) => {
    const reached = entries.some((entry) => entry.isIntersecting);
    if (!reached || window.scrollY <= 0 || sentinel.dataset.sent) return;
    sentinel.dataset.sent = "1";
    observer.disconnect();
    window.htmx.ajax("POST", sentinel.dataset.readUrl, { source: sentinel, target: "#read-status", swap: "outerHTML" });
  });
  observer.observe(sentinel);
}

function watchAll(root) {
  (root.querySelectorAll ? root.querySelectorAll("[data-read-sentinel]") : []).forEach(watch);
}

document.addEventListener("htmx:load", (event) => watchAll(event.detail.elt));
watchAll(document);
