// KV cache calculator: the inputs go to the server (course/kv_math.py, the kv-sizing lab's
// formulas) and the figures come back, so the page and the lab can never disagree.
import { field, formatCount, h, humanBytes, liveRegion, numberInput, prepare, select } from "./common.js";

const MODEL_FIELDS = [
  ["num_hidden_layers", "Layers", 1],
  ["num_attention_heads", "Attention heads", 1],
  ["num_key_value_heads", "KV heads", 1],
  ["hidden_size", "Hidden size", 1],
  ["head_dim", "head_dim (blank: hidden / heads)", 1],
];
const ROWS = [
  ["bytes_per_token", "Bytes per token"],
  ["bytes_per_sequence", "Per sequence (tokens used)"],
  ["bytes_per_max_sequence", "Reserved per sequence at the maximum length"],
  ["cache_bytes", "KV cache budget"],
  ["num_blocks", "Blocks"],
  ["seqs_fit_paged", "Sequences that fit, paged"],
  ["seqs_fit_contiguous", "Sequences that fit, contiguous reservation"],
  ["contiguous_waste_percent", "Batch: waste of contiguous reservation"],
  ["paged_waste_percent", "Batch: waste with paging"],
];

export function mount(root, config) {
  const ui = prepare(root);
  const endpoint = document.querySelector('meta[name="course-kv-endpoint"]')?.content || "/course/widgets/kv/";
  const defaults = config.defaults;
  const presets = config.presets;
  const presetSelect = select("preset", [...Object.entries(presets).map(([k, p]) => [k, p.label]), ["custom", "Custom"]],
    defaults.preset);
  const inputs = {};
  const labels = {};
  const controls = h("div", { class: "widget-controls" }, field("Model preset", presetSelect).label);
  for (const [name, label, min] of MODEL_FIELDS) {
    inputs[name] = numberInput(name, "", { min });
    labels[name] = label;
    controls.append(field(label, inputs[name]).label);
  }
  inputs.dtype_bytes = select("dtype_bytes", [[4, "FP32 (4 bytes)"], [2, "FP16 / BF16 (2 bytes)"], [1, "FP8 (1 byte)"]],
    defaults.dtype_bytes);
  inputs.gpu_memory_gib = numberInput("gpu_memory_gib", defaults.gpu_memory_gib, { min: 1, step: 1 });
  inputs.gpu_memory_utilization = numberInput("gpu_memory_utilization", defaults.gpu_memory_utilization,
    { min: 0.01, max: 1, step: 0.01 });
  inputs.weight_gb = numberInput("weight_gb", "", { min: 0, step: 0.01 });
  inputs.activation_gib = numberInput("activation_gib", defaults.activation_gib, { min: 0, step: 0.5 });
  inputs.block_size = select("block_size", [[8, "8 tokens"], [16, "16 tokens"], [32, "32 tokens"]], defaults.block_size);
  inputs.max_model_len = numberInput("max_model_len", defaults.max_model_len, { min: 1 });
  inputs.context_len = numberInput("context_len", defaults.context_len, { min: 1 });
  inputs.batch = numberInput("batch", defaults.batch, { min: 1 });
  for (const [name, label] of [["dtype_bytes", "KV cache dtype"], ["gpu_memory_gib", "GPU memory (GiB)"],
    ["gpu_memory_utilization", "Memory utilization (0–1)"], ["weight_gb", "Weights (GB, 10⁹ bytes)"],
    ["activation_gib", "Activation peak (GiB)"], ["block_size", "Block size"],
    ["max_model_len", "Maximum length reserved (tokens)"], ["context_len", "Tokens used per sequence"],
    ["batch", "Batch (sequences)"]]) {
    labels[name] = label;
    controls.append(field(label, inputs[name]).label);
  }
  const error = h("p", { class: "widget-error", role: "alert" });
  const live = liveRegion();
  const tbody = h("tbody");
  const table = h("table", {}, h("caption", { text: "Figures for the inputs above" }),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Figure" }), h("th", { scope: "col", class: "num", text: "Value" }))),
    tbody);
  const bars = h("div", { class: "kv-bars" });
  ui.append(controls, error, live, bars, table);

  function applyPreset(key) {
    const preset = presets[key];
    if (!preset) return;
    for (const [name] of MODEL_FIELDS) inputs[name].value = preset[name] ?? "";
    inputs.weight_gb.value = (Math.round(preset.params_b * 2 * 100) / 100).toString();
  }

  let latest = 0;
  async function update() {
    const params = new URLSearchParams();
    for (const [name, input] of Object.entries(inputs)) params.set(name, input.value);
    const ticket = ++latest;
    let data;
    try {
      const response = await fetch(`${endpoint}?${params}`, { headers: { Accept: "application/json" } });
      data = await response.json();
    } catch (problem) {
      if (ticket === latest) error.textContent = "The calculator could not reach the server.";
      return;
    }
    if (ticket !== latest) return;
    for (const input of Object.values(inputs)) input.removeAttribute("aria-invalid");
    if (data.errors) {
      error.textContent = Object.entries(data.errors)
        .map(([name, message]) => `${labels[name] || name}: ${message}`).join(" ");
      for (const name of Object.keys(data.errors)) inputs[name]?.setAttribute("aria-invalid", "true");
      tbody.replaceChildren();
      bars.replaceChildren();
      live.textContent = "No figures until the inputs are valid.";
      return;
    }
    error.textContent = "";
    render(data.report);
  }

  function render(report) {
    tbody.replaceChildren(...ROWS.map(([key, label]) => {
      const value = report[key];
      let text;
      if (key.endsWith("_percent")) text = `${value}%`;
      else if (key.startsWith("bytes") || key === "cache_bytes") text = `${formatCount(value)} B (${humanBytes(value)})`;
      else text = formatCount(value);
      return h("tr", {}, h("th", { scope: "row", text: label }),
        h("td", { class: "num", "data-out": key, "data-value": value, text }));
    }));
    const name = presetSelect.value === "custom" ? "Custom model" : presets[presetSelect.value].label;
    const batch = inputs.batch.value;
    live.textContent = `${name}: ${formatCount(report.bytes_per_token)} bytes (${humanBytes(report.bytes_per_token)}) per token; `
      + `a ${formatCount(inputs.context_len.value)}-token sequence takes ${humanBytes(report.bytes_per_sequence)}. `
      + `The cache gets ${formatCount(report.num_blocks)} blocks of ${inputs.block_size.value} tokens: `
      + `${formatCount(report.seqs_fit_paged)} sequences fit with paging, ${formatCount(report.seqs_fit_contiguous)} with `
      + `contiguous ${formatCount(inputs.max_model_len.value)}-token reservations. For a batch of ${formatCount(batch)}, `
      + `contiguous reservation wastes ${report.contiguous_waste_percent}% of what it holds, paging `
      + `${report.paged_waste_percent}%. The batch ${report.batch_fits_paged ? "fits" : "does not fit"} with paging and `
      + `${report.batch_fits_contiguous ? "fits" : "does not fit"} with contiguous reservation.`;
    bars.replaceChildren(bar("Contiguous", report.contiguous_reserved_bytes, report.batch_used_bytes),
      bar("Paged", report.paged_reserved_bytes, report.batch_used_bytes));
  }

  function bar(label, reserved, used) {
    const usedPercent = reserved ? (100 * used) / reserved : 0;
    const usedSpan = h("span", { class: "used" });
    usedSpan.style.width = `${usedPercent}%`;
    const wasteSpan = h("span", { class: "waste" });
    wasteSpan.style.width = `${100 - usedPercent}%`;
    return h("div", { "aria-hidden": "true" }, h("small", { text: `${label}: ${humanBytes(reserved)} held, ${humanBytes(used)} used` }),
      h("div", { class: "bar" }, usedSpan, wasteSpan));
  }

  let timer = null;
  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(update, 120);
  }
  presetSelect.addEventListener("change", () => { applyPreset(presetSelect.value); schedule(); });
  for (const [name, input] of Object.entries(inputs)) {
    input.addEventListener("input", () => {
      if (MODEL_FIELDS.some(([field]) => field === name)) presetSelect.value = "custom";
      schedule();
    });
    input.addEventListener("change", schedule);
  }
  applyPreset(defaults.preset);
  update();
}
