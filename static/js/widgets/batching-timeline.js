// Static vs continuous batching: the same requests on the same slots, one grid per scheme
// (rows: slots, columns: decode iterations). Mirrors course/widget_math.py batching_timeline.
import { field, h, invalidReason, liveRegion, numberInput, plural, prepare } from "./common.js";

function summary(rows, busy, slots, finish) {
  const steps = rows.length ? rows[0].length : 0;
  const mean = finish.length ? finish.reduce((a, b) => a + b, 0) / finish.length : 0;
  return { rows, steps, busy, capacity: steps * slots,
    utilization: steps ? Math.round(((100 * busy) / (steps * slots)) * 10) / 10 : 0,
    finish, mean_finish: Math.round(mean * 100) / 100 };
}

export function batchingTimeline(lengths, slots) {
  const staticRows = Array.from({ length: slots }, () => []);
  const staticFinish = [];
  let clock = 0;
  for (let start = 0; start < lengths.length; start += slots) {
    const group = lengths.slice(start, start + slots);
    const span = Math.max(...group);
    for (let slot = 0; slot < slots; slot += 1) {
      const length = slot < group.length ? group[slot] : 0;
      for (let i = 0; i < span; i += 1) staticRows[slot].push(i < length ? start + slot : null);
    }
    for (const length of group) staticFinish.push(clock + length);
    clock += span;
  }
  const continuousRows = Array.from({ length: slots }, () => []);
  const queue = lengths.map((_, index) => index);
  const remaining = new Array(slots).fill(0);
  const current = new Array(slots).fill(null);
  const continuousFinish = new Array(lengths.length).fill(0);
  let step = 0;
  while (queue.length || remaining.some((r) => r > 0)) {
    for (let slot = 0; slot < slots; slot += 1) {
      if (remaining[slot] === 0 && queue.length) {
        current[slot] = queue.shift();
        remaining[slot] = lengths[current[slot]];
      }
    }
    for (let slot = 0; slot < slots; slot += 1) {
      if (remaining[slot] > 0) {
        continuousRows[slot].push(current[slot]);
        remaining[slot] -= 1;
        if (remaining[slot] === 0) continuousFinish[current[slot]] = step + 1;
      } else {
        continuousRows[slot].push(null);
      }
    }
    step += 1;
  }
  const busy = lengths.reduce((a, b) => a + b, 0);
  return { static: summary(staticRows, busy, slots, staticFinish),
    continuous: summary(continuousRows, busy, slots, continuousFinish) };
}

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function parseLengths(text) {
  const parts = text.split(/[\s,]+/).filter(Boolean);
  const lengths = parts.map(Number);
  if (!lengths.length || lengths.length > 20 || lengths.some((n) => !Number.isInteger(n) || n < 1 || n > 60)) return null;
  return lengths;
}

export function mount(root, config) {
  const ui = prepare(root);
  const lengthsInput = h("input", { type: "text", name: "lengths", value: config.lengths.join(", ") });
  const slotsInput = numberInput("slots", config.slots, { min: 1, max: 8 });
  const cursor = h("input", { type: "range", name: "iteration", min: 0, value: 0, step: 1 });
  const shuffle = h("button", { type: "button", class: "secondary", text: "New random lengths" });
  const error = h("p", { class: "widget-error", role: "alert" });
  const live = liveRegion();
  const grids = h("div", { class: "timelines" });
  const finishTable = h("table");
  ui.append(h("div", { class: "widget-controls" },
    field("Output lengths (1–60 tokens each, up to 20 requests)", lengthsInput).label,
    field("Slots in the batch (1–8)", slotsInput).label, field("Iteration", cursor).label),
  h("div", { class: "widget-buttons" }, shuffle), error, live, grids, finishTable);

  function grid(title, scheme, at, key, columns) {
    const rows = scheme.rows.map((row) => {
      const cells = [];
      for (let iteration = 0; iteration < columns; iteration += 1) {
        const request = iteration < row.length ? row[iteration] : undefined;
        const state = request === undefined ? " after" : request === null ? "" : " busy";
        const cell = h("span", { class: `timeline-cell${state}${iteration === at ? " cursor" : ""}`,
          text: request === null || request === undefined ? "" : LETTERS[request] });
        if (state === " busy") cell.style.setProperty("--hue", String((request * 67) % 360));
        cells.push(cell);
      }
      const line = h("div", { class: "timeline-row" }, cells);
      line.style.setProperty("--columns", String(columns));
      return line;
    });
    const busyNow = scheme.rows.filter((row) => row[at] !== null && row[at] !== undefined).length;
    return h("figure", {}, h("figcaption", {}, h("strong", { text: title }),
      h("span", { "data-out": `${key}-utilization`, text: `: ${scheme.utilization}% of slot-iterations busy` }),
      h("br"), h("small", { text: `${plural(scheme.steps, "iteration")}; at iteration ${at + 1}: ${at < scheme.steps ? busyNow : 0} of ${plural(scheme.rows.length, "slot")} busy` })),
    h("div", { class: `timeline-grid${columns > 48 ? " dense" : ""}`, "aria-hidden": "true" }, rows));
  }

  function render() {
    const lengths = parseLengths(lengthsInput.value);
    const slots = Number(slotsInput.value);
    const problems = [];
    if (!lengths) problems.push("Output lengths: give 1 to 20 whole numbers between 1 and 60.");
    const slotProblem = invalidReason(slotsInput, "Slots in the batch");
    if (slotProblem) problems.push(slotProblem);
    lengthsInput.toggleAttribute("aria-invalid", !lengths);
    if (problems.length) {
      // The old grids and table would describe inputs that are no longer there: clear them.
      error.textContent = problems.join(" ");
      grids.replaceChildren();
      finishTable.replaceChildren();
      finishTable.hidden = true;
      live.textContent = "No timeline until the inputs are valid.";
      return;
    }
    finishTable.hidden = false;
    error.textContent = "";
    const result = batchingTimeline(lengths, slots);
    cursor.max = String(Math.max(result.static.steps, result.continuous.steps) - 1);
    const at = Math.min(Number(cursor.value), Number(cursor.max));
    const columns = Math.max(result.static.steps, result.continuous.steps);
    grids.replaceChildren(grid("Static batching", result.static, at, "static", columns),
      grid("Continuous batching", result.continuous, at, "continuous", columns));
    finishTable.replaceChildren(h("caption", { text: "Iteration at which each request finishes" }),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Request" }), h("th", { scope: "col", class: "num", text: "Output tokens" }),
        h("th", { scope: "col", class: "num", text: "Static" }), h("th", { scope: "col", class: "num", text: "Continuous" }))),
      h("tbody", {}, lengths.map((length, index) => h("tr", {}, h("th", { scope: "row", text: LETTERS[index] }),
        h("td", { class: "num", text: String(length) }), h("td", { class: "num", text: String(result.static.finish[index]) }),
        h("td", { class: "num", text: String(result.continuous.finish[index]) })))));
    live.textContent = `${plural(lengths.length, "request")} on ${plural(slots, "slot")}. Static batching takes ${plural(result.static.steps, "iteration")} `
      + `with ${result.static.busy} of ${result.static.capacity} slot-iterations busy (${result.static.utilization}%); `
      + `continuous batching takes ${plural(result.continuous.steps, "iteration")}, ${result.continuous.busy} of `
      + `${result.continuous.capacity} busy (${result.continuous.utilization}%). Mean finish iteration: static `
      + `${result.static.mean_finish}, continuous ${result.continuous.mean_finish}.`;
  }

  shuffle.addEventListener("click", () => {
    const count = config.lengths.length;
    lengthsInput.value = Array.from({ length: count }, () => 1 + Math.floor(Math.random() * 24)).join(", ");
    render();
  });
  for (const input of [lengthsInput, slotsInput, cursor]) input.addEventListener("input", render);
  render();
}
