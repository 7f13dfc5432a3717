// The lab editor's shortcuts: Ctrl/Cmd+Enter runs, Ctrl/Cmd+Shift+Enter submits. Listened for in the capture
// phase on the form, so the editor's own Mod-Enter (insert a blank line) never sees them.
(function () {
  const form = document.querySelector("form.lab-editor");
  if (!form) return;
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || !(event.ctrlKey || event.metaKey) || event.altKey) return;
    const button = form.querySelector(`button[name="mode"][value="${event.shiftKey ? "submit" : "run"}"]`);
    if (!button || button.disabled) return;
    event.preventDefault();
    event.stopPropagation();
    button.click(); // as a click: htmx sends the button's mode with the form
  }, true);
})();
