// The pieces of CodeMirror 6 the lab page needs: a Python editor that mirrors into a <textarea>.
import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { indentWithTab } from "@codemirror/commands";
import { indentUnit } from "@codemirror/language";
import { python } from "@codemirror/lang-python";
import { oneDark } from "@codemirror/theme-one-dark";

const prefersDark = () => window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;

/** Replace `textarea` by an editor; the textarea keeps the current text so the form still posts it. */
export function mountPythonEditor(textarea) {
  const view = new EditorView({
    doc: textarea.value,
    extensions: [
      basicSetup,
      keymap.of([indentWithTab]),
      indentUnit.of("    "),
      python(),
      prefersDark() ? oneDark : [],
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ "aria-label": textarea.getAttribute("aria-label") || "Code editor" }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) textarea.value = update.state.doc.toString();
      }),
    ],
  });
  textarea.parentNode.insertBefore(view.dom, textarea);
  textarea.hidden = true;
  textarea.form?.addEventListener("submit", () => { textarea.value = view.state.doc.toString(); });
  return view;
}

export { EditorView };
