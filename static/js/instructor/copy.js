// Copy buttons: <button data-copy="#input-id"> copies that input's value. The input selects its whole text on
// focus, so where the Clipboard API is missing (plain http, old browsers) a tap and the system's copy still work.
document.addEventListener("focusin", (event) => {
  if (event.target.matches("input[data-select-on-focus]")) event.target.select();
});

document.addEventListener("click", async (event) => {
  const button = event.target.closest("button[data-copy]");
  if (!button) return;
  const input = document.querySelector(button.dataset.copy);
  const status = button.parentElement.querySelector(".dash-copy-status");
  let copied = false;
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(input.value); copied = true; } catch (error) { copied = false; }
  }
  if (!copied) {
    input.focus();
    input.select();
    try { copied = document.execCommand("copy"); } catch (error) { copied = false; }
  }
  if (status) status.textContent = copied ? "Copied." : "Selected: press Ctrl+C (⌘C) to copy.";
});
