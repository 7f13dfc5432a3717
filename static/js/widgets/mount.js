// Finds widget mount points (<div data-widget="NAME">) and starts each widget's module once,
// on first load and whenever htmx swaps new content in.
const modules = {
  "kv-calculator": () => import("./kv-calculator.js"),
  "ring-stepper": () => import("./ring-stepper.js"),
  "batching-timeline": () => import("./batching-timeline.js"),
  "roofline": () => import("./roofline.js"),
};

function mountAll(root) {
  const scope = root && root.querySelectorAll ? root : document;
  const found = [...scope.querySelectorAll("[data-widget]")];
  if (scope.matches && scope.matches("[data-widget]")) found.push(scope);
  for (const element of found) {
    if (element.dataset.mounted) continue;
    const load = modules[element.dataset.widget];
    if (!load) continue;
    element.dataset.mounted = "loading";
    load()
      .then((module) => {
        const config = JSON.parse(element.dataset.config || "{}");
        module.mount(element, config);
        element.dataset.mounted = "ready";
      })
      .catch((error) => {
        element.dataset.mounted = "error";
        console.error(`widget ${element.dataset.widget} failed`, error);
      });
  }
}

mountAll(document);
document.addEventListener("htmx:load", (event) => mountAll(event.target));
