// KV cache calculator: the inputs go to the server (course/kv_math.py, the kv-sizing lab's
// formulas) and the figures come back, so the page and the lab can never disagree.
import { field, formatCount, h, humanBytes, invalidReasons, liveRegion, numberInput, prepare, select } from "./common.js";

// [name, label, min, max, required]: the limits of course/forms.py KvCalculatorForm, so the browser
// refuses what the server would, in words, without a round trip that answers 400.
const MODEL_FIELDS = [
  ["num_hidden_layers", "Layers", 1, 1024, true],
  ["num_attention_heads", "Attention heads", 1, 1024, true],
  ["num_key_value_heads", "KV heads", 1, 1024, false],
  ["hidden_size", "Hidden size", 1, 1000000, true],
  ["head_dim", "head_dim (blank: hidden / heads)", 1, 4096, false],
];
// Figures that depend only on the model, still true when the GPU cannot hold it.
const MODEL_ONLY = new Set(["bytes_per_token", "bytes_per_sequence", "bytes_per_max_sequence"]);
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
  for (const [name, label, min, max, required] of MODEL_FIELDS) {
    inputs[name] = numberInput(name, "", { min, max, required });
    labels[name] = label;
    controls.append(field(label, inputs[name]).label);
  }
  inputs.dtype_bytes = select("dtype_bytes", [[4, "FP32 (4 bytes)"], [2, "FP16 / BF16 (2 bytes)"], [1, "FP8 (1 byte)"]],
    defaults.dtype_bytes);
  inputs.gpu_memory_gib = numberInput("gpu_memory_gib", defaults.gpu_memory_gib, { min: 1, max: 4096, step: "any" });
  inputs.gpu_memory_utilization = numberInput("gpu_memory_utilization", defaults.gpu_memory_utilization,
    { min: 0.01, max: 1, step: "any" });
  inputs.weight_gb = numberInput("weight_gb", "", { min: 0, max: 100000, step: "any" });
  inputs.activation_gib = numberInput("activation_gib", defaults.activation_gib, { min: 0, max: 4096, step: "any" });
  inputs.block_size = select("block_size", [[8, "8 tokens"], [16, "16 tokens"], [32, "32 tokens"]], defaults.block_size);
  inputs.max_model_len = numberInput("max_model_len", defaults.max_model_len, { min: 1, max: 10000000 });
  inputs.context_len = numberInput("context_len", defaults.context_len, { min: 1, max: 10000000 });
  inputs.batch = numberInput("batch", defaults.batch, { min: 1, max: 1000000 });
  for (const [name, label] of [["dtype_bytes", "KV cache dtype"], ["gpu_memory_gib", "GPU memory (GiB)"],
    ["gpu_memory_utilization", "Memory utilization (0–1)"], ["weight_gb", "Weights (GB, 10⁹ bytes)"],
    ["activation_gib", "Activation peak (GiB)"], ["block_size", "Block size"],
    ["max_model_len", "Maximum length reserved (tokens)"], ["context_len", "Tokens used per sequence"],
    ["batch", "Batch (sequences)"]]) {
    labels[name] = label;
    controls.append(field(label, inputs[name]).label);
  }
  const error = h("p", { class: "widget-error", role: "alert" });
  const note = h("p", { class: "widget-note", "data-out": "note" });
  const live = liveRegion();
  const tbody = h("tbody");
  const table = h("table", {}, h("caption", { text: "Figures for the inputs above" }),
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Figure" }), h("th", { scope: "col", class: "num", text: "Value" }))),
    tbody);
  const bars = h("div", { class: "kv-bars" });
  ui.append(controls, error, note, live, bars, table);

  function applyPreset(key) {
    const preset = presets[key];
    if (!preset) return;
    for (const [name] of MODEL_FIELDS) inputs[name].value = preset[name] ?? "";
    inputs.weight_gb.value = (Math.round(preset.params_b * 2 * 100) / 100).toString();
  }

  // The same cross-field rules as KvCalculatorForm.clean, worded the same.
  function crossFieldProblems() {
    const value = (name) => (inputs[name].value === "" ? null : Number(inputs[name].value));
    const heads = value("num_attention_heads"), kvHeads = value("num_key_value_heads");
    const problems = {};
    if (heads && kvHeads && (kvHeads > heads || heads % kvHeads)) problems.num_key_value_heads = "KV heads must divide the attention heads.";
    if (value("context_len") && value("max_model_len") && value("context_len") > value("max_model_len")) {
      problems.context_len = "Tokens used cannot exceed the maximum length reserved.";
    }
    if (heads && value("hidden_size") && value("head_dim") === null && value("hidden_size") < heads) {
      problems.hidden_size = "Hidden size must be at least the number of heads.";
    }
    return problems;
  }

  // An error replaces the figures: none of them may stay on screen describing inputs that are gone.
  function showErrors(messages, invalidNames = []) {
    for (const name of invalidNames) inputs[name]?.setAttribute("aria-invalid", "true");
    error.textContent = messages.join(" ");
    note.textContent = "";
    tbody.replaceChildren();
    bars.replaceChildren();
    table.hidden = true;
    live.textContent = "No figures until the inputs are valid.";
  }

  let latest = 0;
  async function update() {
    const ticket = ++latest;
    const invalid = invalidReasons(Object.entries(inputs).map(([name, input]) => [input, labels[name]]));
    const crossField = crossFieldProblems();
    if (invalid.length || Object.keys(crossField).length) {
      const messages = [...invalid, ...Object.entries(crossField).map(([name, message]) => `${labels[name]}: ${message}`)];
      return showErrors(messages, Object.keys(crossField));
    }
    const params = new URLSearchParams();
    for (const [name, input] of Object.entries(inputs)) params.set(name, input.value);
    let data;
    try {
      const response = await fetch(`${endpoint}?${params}`, { headers: { Accept: "application/json" } });
      data = await response.json();
    } catch (problem) {
      if (ticket === latest) showErrors(["The calculator could not reach the server."]);
      return;
    }
    if (ticket !== latest) return;
    if (data.errors) {
      return showErrors(Object.entries(data.errors).map(([name, message]) => `${labels[name] || name}: ${message}`),
        Object.keys(data.errors));
    }
    error.textContent = "";
    table.hidden = false;
    render(data.report, data.problems);
  }

  function render(report, problems) {
    const rows = problems.fatal ? ROWS.filter(([key]) => MODEL_ONLY.has(key)) : ROWS;
    tbody.replaceChildren(...rows.map(([key, label]) => {
      const value = report[key];
      let text;
      if (key.endsWith("_percent")) text = `${value}%`;
      else if (key.startsWith("bytes") || key === "cache_bytes") text = `${formatCount(value)} B (${humanBytes(value)})`;
      else text = formatCount(value);
      return h("tr", {}, h("th", { scope: "row", text: label }),
        h("td", { class: "num", "data-out": key, "data-value": value, text }));
    }));
    const name = presetSelect.value === "custom" ? "Custom model" : presets[presetSelect.value].label;
    if (problems.fatal) {
      // The model-only rows stay; the budget, blocks, fits and waste would be figures of a GPU that cannot run it.
      error.textContent = problems.messages.join(" ");
      note.textContent = "";
      bars.replaceChildren();
      live.textContent = `${name}: ${formatCount(report.bytes_per_token)} bytes (${humanBytes(report.bytes_per_token)}) per token. `
        + "No cache figures for this GPU: see the message above.";
      return;
    }
    note.textContent = problems.messages.join(" ");
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
