// Ring all-reduce stepper: N ranks each hold N chunks; step through scatter-reduce (N−1 steps)
// and all-gather (N−1 steps) and watch the bytes each rank has sent approach 2(N−1)/N · K.
// The step rule mirrors course/widget_math.py ring_steps.
import { field, h, invalidReason, liveRegion, numberInput, prepare, select, trim } from "./common.js";

export function ringSteps(ranks) {
  const steps = [];
  for (const [phase, offset] of [["scatter-reduce", 0], ["all-gather", 1]]) {
    for (let step = 0; step < ranks - 1; step += 1) {
      const sends = [];
      for (let rank = 0; rank < ranks; rank += 1) {
        sends.push({ rank, chunk: (((rank + offset - step) % ranks) + ranks) % ranks, to: (rank + 1) % ranks });
      }
      steps.push({ phase, sends });
    }
  }
  return steps;
}

// contributions[rank][chunk] = sorted ranks whose data that chunk holds, after `done` steps.
function stateAfter(ranks, done) {
  let state = Array.from({ length: ranks }, (_, rank) => Array.from({ length: ranks }, () => [rank]));
  ringSteps(ranks).slice(0, done).forEach(({ phase, sends }) => {
    const before = state.map((row) => row.map((cell) => [...cell]));
    for (const { rank, chunk, to } of sends) {
      state[to][chunk] = phase === "scatter-reduce"
        ? [...new Set([...before[to][chunk], ...before[rank][chunk]])].sort((a, b) => a - b)
        : [...before[rank][chunk]];
    }
  });
  return state;
}

export function mount(root, config) {
  const ui = prepare(root);
  const rankSelect = select("ranks", [2, 3, 4, 5, 6, 7, 8].map((n) => [n, `${n} ranks`]), config.ranks);
  const sizeInput = numberInput("tensor_mib", config.tensor_mib, { min: 1, max: 1048576, step: "any" });
  const back = h("button", { type: "button", class: "secondary", text: "← Previous step" });
  const next = h("button", { type: "button", text: "Next step →" });
  const reset = h("button", { type: "button", class: "secondary", text: "Reset" });
  const counter = h("span", { class: "muted" });
  const live = liveRegion();
  const grid = h("table", { class: "ring-grid" });
  const bytesLine = h("p", { "data-out": "bytes" });
  const error = h("p", { class: "widget-error", role: "alert" });
  // What the cell styles mean; the swatches use the same classes as the grid's cells.
  const legend = h("ul", { class: "ring-legend", "aria-label": "Legend" },
    h("li", {}, h("span", { class: "swatch sent", "aria-hidden": "true" }), "sent this step"),
    h("li", {}, h("span", { class: "swatch received", "aria-hidden": "true" }), "received this step"),
    h("li", {}, h("span", { class: "swatch done", "aria-hidden": "true", text: "Σ" }), "fully reduced (Σ all)"),
    h("li", {}, h("code", { text: "r0+r1" }), "sum of those ranks' data so far"));
  ui.append(h("div", { class: "widget-controls" }, field("Ranks (N)", rankSelect).label,
    field("Tensor size K (MiB)", sizeInput).label), h("div", { class: "widget-buttons" }, back, next, reset, counter),
    error, live, bytesLine, legend, grid);
  let done = 0;

  function render() {
    const ranks = Number(rankSelect.value);
    const problem = invalidReason(sizeInput, "Tensor size K");
    const hidden = Boolean(problem);
    error.textContent = problem || "";
    for (const element of [bytesLine, legend, grid]) element.hidden = hidden;
    next.disabled = back.disabled = hidden;
    if (problem) {
      grid.replaceChildren();
      live.textContent = "No steps until the tensor size is valid.";
      return;
    }
    const size = Number(sizeInput.value);
    const steps = ringSteps(ranks);
    const total = steps.length;
    done = Math.min(Math.max(done, 0), total);
    const state = stateAfter(ranks, done);
    const current = done > 0 ? steps[done - 1] : null;
    const chunk = size / ranks;
    const sent = done * chunk;
    const goal = (2 * (ranks - 1) / ranks) * size;
    back.disabled = done === 0;
    next.disabled = done === total;
    counter.textContent = `Step ${done} of ${total}`;
    grid.replaceChildren(
      h("caption", { text: `What each rank holds in each chunk${current ? ` after step ${done} (${current.phase})` : " before the first step"}` }),
      h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Rank" }),
        ...Array.from({ length: ranks }, (_, c) => h("th", { scope: "col", text: `chunk ${c}` })))),
      h("tbody", {}, state.map((row, rank) => h("tr", {}, h("th", { scope: "row", text: `rank ${rank}` }),
        row.map((cell, c) => {
          const classes = [];
          if (current && current.sends.some((s) => s.rank === rank && s.chunk === c)) classes.push("sent");
          if (current && current.sends.some((s) => s.to === rank && s.chunk === c)) classes.push("received");
          if (cell.length === ranks) classes.push("done");
          return h("td", { class: classes.join(" "), text: cell.length === ranks ? "Σ all" : cell.map((r) => `r${r}`).join("+") });
        })))),
    );
    bytesLine.textContent = `Each rank has sent ${done} × K/N = ${trim(sent.toFixed(2))} MiB of `
      + `2(N−1)/N · K = ${trim(goal.toFixed(2))} MiB.`;
    bytesLine.dataset.sent = sent;
    bytesLine.dataset.goal = goal;
    if (!current) {
      live.textContent = `${ranks} ranks, each holding ${ranks} chunks of ${trim(chunk.toFixed(2))} MiB. `
        + `Press Next step to start the scatter-reduce phase.`;
    } else {
      const moves = current.sends.map((s) => `rank ${s.rank} sends chunk ${s.chunk} to rank ${s.to}`).join("; ");
      const verb = current.phase === "scatter-reduce" ? "adds it to its own copy" : "overwrites its copy";
      let tail = "";
      if (done === ranks - 1) tail = " Scatter-reduce is complete: each rank holds one fully reduced chunk.";
      if (done === total) tail = " All-gather is complete: every rank holds the whole reduced tensor.";
      live.textContent = `Step ${done} of ${total}, ${current.phase}: ${moves}; each receiver ${verb}. `
        + `${bytesLine.textContent}${tail}`;
    }
  }

  next.addEventListener("click", () => { done += 1; render(); });
  back.addEventListener("click", () => { done -= 1; render(); });
  reset.addEventListener("click", () => { done = 0; render(); });
  rankSelect.addEventListener("change", () => { done = 0; render(); });
  sizeInput.addEventListener("input", render);
  render();
}
