// Prefill and decode on the roofline: arithmetic intensity (FLOP per byte moved) of one step
// against the chosen GPU's ridge point. Mirrors course/widget_math.py roofline_point and decode_step.
import { field, formatCount, h, invalidReasons, liveRegion, numberInput, plural, prepare, select, trim } from "./common.js";

const round = (value, digits) => Math.round(value * 10 ** digits) / 10 ** digits;

// Where `flops` over `moved` bytes sits on the GPU's roofline, and the least time it can take there.
function onTheRoof(gpu, flops, moved) {
  const intensity = flops / moved;
  const ridge = gpu.tflops / gpu.tbps;
  const attained = Math.min(gpu.tflops, intensity * gpu.tbps);
  const seconds = Math.max(flops / (gpu.tflops * 1e12), moved / (gpu.tbps * 1e12));
  return { flops, bytes: moved, intensity: round(intensity, 2), ridge: round(ridge, 1),
    attained_tflops: round(attained, 1), bound: intensity >= ridge ? "compute" : "memory", step_ms: round(seconds * 1e3, 3) };
}

export function rooflinePoint({ gpu, paramsB, kvBytesPerToken, batch, tokensPerSeq, contextLen, hiddenSize, weightBytesPerParam = 2 }) {
  const params = paramsB * 1e9;
  const tokens = batch * tokensPerSeq;
  const flops = 2 * params * tokens;
  // Activations: each d × d weight's T inputs read and outputs written, 2 · 2 · T · params / d bytes in all.
  const activations = (2 * weightBytesPerParam * tokens * params) / hiddenSize;
  const moved = params * weightBytesPerParam + activations + batch * contextLen * kvBytesPerToken;
  return { tokens, ...onTheRoof(gpu, flops, moved) };
}

// One decode step as the section times it: the weights read once plus every sequence's KV cache.
export function decodeStep({ gpu, paramsB, kvBytesPerToken, batch, contextLen, weightBytesPerParam = 2 }) {
  const weightBytes = paramsB * 1e9 * weightBytesPerParam;
  const kvBytes = batch * contextLen * kvBytesPerToken;
  const point = onTheRoof(gpu, 2 * paramsB * 1e9 * batch, weightBytes + kvBytes);
  return { ...point, weight_bytes: weightBytes, kv_bytes: kvBytes, tokens_per_s: Math.round((batch * 1e3) / point.step_ms) };
}

const gigabytes = (bytes) => `${trim((bytes / 1e9).toFixed(2))} GB`;

function decodeLine(step, batch, context) {
  return `Decode step, ${plural(batch, "sequence")} of ${formatCount(context)} tokens: `
    + `reads ${gigabytes(step.weight_bytes)} of weights and ${gigabytes(step.kv_bytes)} of KV cache, intensity `
    + `${step.intensity} FLOP per byte. ${step.bound === "memory" ? "Memory" : "Compute"}-bound: at least ${step.step_ms} ms `
    + `per step, about ${formatCount(step.tokens_per_s)} tokens/s.`;
}

// As the KV calculator does: a step time means nothing for a model whose weights alone overflow the card.
export function fitWarning(gpu, step) {
  if (!gpu.memory_gb) return "";
  const total = step.weight_bytes + step.kv_bytes;
  if (step.weight_bytes > gpu.memory_gb * 1e9) {
    return `The ${gigabytes(step.weight_bytes)} of weights do not fit in the ${gpu.memory_gb} GB of one ${gpu.label}: `
      + "this model cannot run on it as is (split it across GPUs or quantize it); the figures below assume it could.";
  }
  if (total > gpu.memory_gb * 1e9) {
    return `Weights and KV cache together take ${gigabytes(total)}, more than the ${gpu.memory_gb} GB of one ${gpu.label}: `
      + "this batch does not fit; the figures below assume it could.";
  }
  return "";
}

const SVG = "http://www.w3.org/2000/svg";
function s(tag, attributes = {}, text) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

function plot(gpu, points) {
  const width = 520, height = 300, left = 62, right = 28, top = 10, bottom = 40;
  const xMin = 0.1, xMax = 1e5, yMin = 0.1, yMax = gpu.tflops * 3;
  const x = (v) => left + ((Math.log10(v) - Math.log10(xMin)) / (Math.log10(xMax) - Math.log10(xMin))) * (width - left - right);
  const y = (v) => height - bottom - ((Math.log10(v) - Math.log10(yMin)) / (Math.log10(yMax) - Math.log10(yMin))) * (height - top - bottom);
  const ridge = gpu.tflops / gpu.tbps;
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "roofline-svg", role: "img",
    "aria-label": "Roofline plot; the table below gives the same figures" });
  svg.append(s("line", { class: "axis", x1: left, y1: height - bottom, x2: width - right, y2: height - bottom }),
    s("line", { class: "axis", x1: left, y1: top, x2: left, y2: height - bottom }));
  for (let power = -1; power <= 5; power += 1) {
    const value = 10 ** power;
    svg.append(s("text", { x: x(value), y: height - bottom + 14, "text-anchor": "middle" }, value >= 1 ? formatCount(value) : String(value)));
  }
  for (let power = -1; 10 ** power <= yMax; power += 1) {
    const value = 10 ** power;
    svg.append(s("line", { class: "tick", x1: left - 4, y1: y(value), x2: left, y2: y(value) }),
      s("text", { class: "y-tick", x: left - 6, y: y(value) + 4, "text-anchor": "end" }, value >= 1 ? formatCount(value) : String(value)));
  }
  svg.append(s("text", { x: (width + left) / 2, y: height - 6, "text-anchor": "middle" }, "Arithmetic intensity (FLOP per byte)"),
    s("text", { x: -(top + height - bottom) / 2, y: 12, "text-anchor": "middle", transform: "rotate(-90)" }, "Attainable TFLOP/s"),
    s("path", { class: "roof", d: `M ${x(xMin)} ${y(Math.max(yMin, xMin * gpu.tbps))} L ${x(ridge)} ${y(gpu.tflops)} L ${x(xMax)} ${y(gpu.tflops)}` }),
    s("line", { class: "ridge", x1: x(ridge), y1: y(gpu.tflops), x2: x(ridge), y2: height - bottom }),
    s("text", { x: x(ridge) + 4, y: y(gpu.tflops) + 14 }, `ridge ${round(ridge, 1)}`));
  for (const [name, point] of points) {
    const cx = x(Math.min(Math.max(point.intensity, xMin), xMax));
    const cy = y(Math.max(point.attained_tflops, yMin));
    svg.append(s("circle", { class: name, cx, cy, r: 6 }), s("text", { x: cx + 8, y: cy - 8 }, name));
  }
  return svg;
}

export function mount(root, config) {
  const ui = prepare(root);
  const d = config.defaults;
  const gpuSelect = select("gpu", Object.entries(config.gpus).map(([k, g]) => [k, `${g.label} (${g.tflops} TFLOP/s, ${g.tbps} TB/s)`]), d.gpu);
  const modelSelect = select("model", Object.entries(config.models).map(([k, m]) => [k, m.label]), d.model);
  const batchInput = numberInput("batch", d.batch, { min: 1, max: 4096 });
  const promptInput = numberInput("prompt_len", d.prompt_len, { min: 1, max: 131072 });
  const contextInput = numberInput("context_len", d.context_len, { min: 0, max: 131072 });
  const error = h("p", { class: "widget-error", role: "alert" });
  const fit = h("p", { class: "widget-error", "data-out": "fit-warning", hidden: true });
  const live = liveRegion();
  const figure = h("div");
  const table = h("table");
  ui.append(h("div", { class: "widget-controls" }, field("GPU", gpuSelect).label, field("Model (FP16)", modelSelect).label,
    field("Batch (sequences)", batchInput).label, field("Prompt length for prefill", promptInput).label,
    field("Context length during decode", contextInput).label), error, fit, live, figure, table);

  function render() {
    const gpu = config.gpus[gpuSelect.value];
    const model = config.models[modelSelect.value];
    const batch = Number(batchInput.value), prompt = Number(promptInput.value), context = Number(contextInput.value);
    const problems = invalidReasons([[batchInput, "Batch"], [promptInput, "Prompt length"], [contextInput, "Context length"]]);
    if (!model.hidden_size) problems.push("This page holds an older copy of the widget's model data; reload the course content.");
    if (problems.length) {
      // No figures beside an error: the plot and the table would describe inputs that are no longer there.
      error.textContent = problems.join(" ");
      figure.replaceChildren();
      table.replaceChildren();
      live.textContent = "No figures until the inputs are valid.";
      return;
    }
    error.textContent = "";
    const sizes = { gpu, paramsB: model.params_b, kvBytesPerToken: model.kv_bytes_per_token };
    // Prefill is one prompt, as the section's table counts it; the batch is the sequences decoding together.
    const prefill = rooflinePoint({ ...sizes, hiddenSize: model.hidden_size, batch: 1, tokensPerSeq: prompt, contextLen: 0 });
    const decode = decodeStep({ ...sizes, batch, contextLen: context });
    fit.textContent = fitWarning(gpu, decode);
    fit.hidden = !fit.textContent;
    figure.replaceChildren(plot(gpu, [["prefill", prefill], ["decode", decode]]));
    const row = (name, label, p) => h("tr", {}, h("th", { scope: "row", text: label }),
      h("td", { class: "num", "data-out": `${name}-intensity`, text: String(p.intensity) }),
      h("td", { "data-out": `${name}-bound`, text: p.bound }),
      h("td", { class: "num", text: String(p.attained_tflops) }), h("td", { class: "num", text: String(p.step_ms) }));
    table.replaceChildren(h("caption", { text: `Ridge point of ${gpu.label}: ${prefill.ridge} FLOP per byte` }),
      h("thead", {}, h("tr", {}, ...["Phase", "Intensity (FLOP/B)", "Bound by", "Attainable TFLOP/s", "Step time (ms)"]
        .map((text) => h("th", { scope: "col", text })))),
      h("tbody", {}, row("prefill", `prefill (one ${formatCount(prompt)}-token prompt)`, prefill),
        row("decode", `decode (${formatCount(batch)} sequences)`, decode)));
    // The decode step leads the live summary, in bold: it is the point the section's step times describe.
    live.replaceChildren(`${model.label} on ${gpu.label}, ridge at ${prefill.ridge} FLOP per byte. `,
      h("strong", { "data-out": "decode-line", text: decodeLine(decode, batch, context) }),
      ` Prefill of one ${formatCount(prompt)}-token prompt: intensity ${prefill.intensity}, ${prefill.bound}-bound, up to `
      + `${prefill.attained_tflops} TFLOP/s. Counts 2 FLOPs per parameter per token; bytes are the weights read once per step, `
      + `plus, for prefill, the activations each weight reads and writes and, for decode, the KV cache of every sequence.`);
  }
  for (const input of [gpuSelect, modelSelect, batchInput, promptInput, contextInput]) {
    input.addEventListener("input", render);
    input.addEventListener("change", render);
  }
  render();
}
