// Small DOM and number helpers shared by the widgets.

export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name === "text") element.textContent = value;
    else if (name.startsWith("on")) element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) element.append(child);
  }
  return element;
}

let uid = 0;
export function nextId(prefix) {
  uid += 1;
  return `${prefix}-${uid}`;
}

// A labelled form control: returns {label, input}.
export function field(labelText, input) {
  const id = input.id || nextId("w");
  input.id = id;
  return { label: h("label", { for: id }, h("span", { text: labelText }), input), input };
}

export function numberInput(name, value, { min, max, step = 1, required = true } = {}) {
  return h("input", { type: "number", name, value, min, max, step, required, inputmode: "decimal" });
}

// Why a number box's value is refused, in words, from the browser's own constraint check
// (min, max, step, required), or null when it is fine. Marks the box aria-invalid either way.
export function invalidReason(input, label) {
  const validity = input.validity;
  input.toggleAttribute("aria-invalid", !validity.valid);
  if (validity.valid) return null;
  if (validity.valueMissing || validity.badInput) return `${label}: enter a number.`;
  if (validity.rangeOverflow) return `${label}: at most ${formatCount(input.max)}.`;
  if (validity.rangeUnderflow) return `${label}: at least ${formatCount(input.min)}.`;
  if (validity.stepMismatch) return Number(input.step) === 1 ? `${label}: a whole number.` : `${label}: in steps of ${input.step}.`;
  return `${label}: not a valid value.`;
}

// The messages for every refused box of [[input, label], ...]; an empty list when all are valid.
export function invalidReasons(pairs) {
  return pairs.map(([input, label]) => invalidReason(input, label)).filter(Boolean);
}

export function select(name, options, value) {
  const element = h("select", { name });
  for (const [optionValue, text] of options) {
    const option = h("option", { value: optionValue, text });
    if (String(optionValue) === String(value)) option.selected = true;
    element.append(option);
  }
  return element;
}

// Mirrors course/kv_math.py human_bytes: binary units, up to two decimals.
export function humanBytes(count) {
  let value = Number(count);
  for (const unit of ["B", "KiB", "MiB", "GiB", "TiB"]) {
    if (Math.abs(value) < 1024 || unit === "TiB") {
      return `${trim(value.toFixed(2))} ${unit}`;
    }
    value /= 1024;
  }
  return `${count} B`;
}

export function trim(text) {
  return text.includes(".") ? text.replace(/0+$/, "").replace(/\.$/, "") : text;
}

export function formatCount(value) {
  return Number(value).toLocaleString("en-US");
}

export function prepare(root, title) {
  const fallback = root.querySelector(".widget-fallback-wrap");
  if (fallback) fallback.hidden = true;
  const ui = h("div", { class: "widget-ui" });
  root.append(ui);
  return ui;
}

export function liveRegion() {
  return h("p", { class: "widget-live", "aria-live": "polite", role: "status" });
}

// "1 slot", "4 slots": a count with its noun, singular when the count is one.
export function plural(count, noun) {
  return `${formatCount(count)} ${noun}${Number(count) === 1 ? "" : "s"}`;
}
