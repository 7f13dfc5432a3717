// Turns the lab page's <textarea data-editor="python"> into a CodeMirror 6 editor; without JS the textarea stays.
// The editor is kept on the textarea (textarea.editorView) so editor-draft.js can read and replace its text.
(function () {
  function mount() {
    if (!window.CodeMirrorBundle) return;
    document.querySelectorAll('textarea[data-editor="python"]').forEach(function (textarea) {
      if (textarea.dataset.mounted) return;
      textarea.dataset.mounted = "1";
      textarea.editorView = window.CodeMirrorBundle.mountPythonEditor(textarea);
      textarea.dispatchEvent(new CustomEvent("editor:mounted", { bubbles: true }));
      if (textarea.form && !textarea.form.hasAttribute("hx-post")) {
        textarea.form.addEventListener("submit", function (event) {
          // Both buttons off once sent, but keep the clicked one's name=value in the post.
          setTimeout(function () {
            textarea.form.querySelectorAll("button[type=submit]").forEach(function (b) { b.disabled = true; });
          }, 0);
        });
      }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mount);
  else mount();
})();
