// The lab editor keeps the learner's work: the text is posted as a draft a moment after each change
// (and when the page is hidden), past submissions load back into the editor without leaving the page,
// and a refused Run/Submit (400) shows its message above the buttons, leaving the result panel as it was.
(function () {
  var SAVE_AFTER_MS = 800;

  function start() {
    var textarea = document.querySelector("textarea[data-draft-url]");
    if (!textarea) return;
    var status = document.getElementById("draft-status");
    var token = (textarea.form.querySelector("input[name=csrfmiddlewaretoken]") || {}).value || "";
    var saved = textarea.dataset.draftStale ? null : textarea.value;
    var timer = null;

    function current() {
      var view = textarea.editorView;
      return view ? view.state.doc.toString() : textarea.value;
    }
    function say(text) { if (status) status.textContent = text; }
    function body(text) {
      var data = new FormData();
      data.append("csrfmiddlewaretoken", token);
      data.append("source", text);
      return data;
    }
    function save() {
      timer = null;
      var text = current();
      if (text === saved) return;
      say("Saving…");
      fetch(textarea.dataset.draftUrl, { method: "POST", body: body(text), credentials: "same-origin",
                                         headers: { "X-CSRFToken": token } })
        .then(function (response) {
          if (response.ok) { saved = text; say("Saved " + new Date().toLocaleTimeString() + "."); return; }
          return response.text().then(function (reason) { say("Not saved: " + reason); });
        })
        .catch(function () { say("Not saved: the server could not be reached; keep this tab open."); });
    }
    function changed() {
      if (timer) clearTimeout(timer);
      timer = setTimeout(save, SAVE_AFTER_MS);
    }
    function watch() {
      // CodeMirror may edit through EditContext, which fires no input events: watch the document instead.
      // Its text is immutable, so a new object means a change, and the comparison costs nothing.
      var view = textarea.editorView, last = view ? view.state.doc : textarea.value;
      setInterval(function () {
        var now = view ? view.state.doc : textarea.value;
        if (now !== last) { last = now; changed(); }
      }, 250);
      if (textarea.dataset.draftStale) changed();  // code loaded from a past submission: keep it as the draft
    }
    function replace(text) {
      var view = textarea.editorView;
      if (view) view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
      textarea.value = text;
      changed();
    }

    // Reset to starter: asks first; the editor's undo (Ctrl/Cmd+Z) brings the learner's code back, and the
    // starter becomes the saved draft like any other edit.
    var reset = document.getElementById("reset-starter");
    var starter = document.getElementById("starter-code");
    if (reset && starter) {
      reset.addEventListener("click", function () {
        var text = JSON.parse(starter.textContent);
        if (current() === text) { say("This is the starter code already."); return; }
        if (!window.confirm(reset.dataset.confirm)) return;
        replace(text);
        say("Reset to the starter code. Ctrl+Z (⌘+Z) in the editor brings your code back.");
        if (textarea.editorView) textarea.editorView.focus();
      });
    }

    if (textarea.editorView || !window.CodeMirrorBundle) watch();
    else textarea.addEventListener("editor:mounted", watch, { once: true });

    document.addEventListener("visibilitychange", function () {
      if (document.visibilityState !== "hidden" || current() === saved) return;
      if (navigator.sendBeacon && navigator.sendBeacon(textarea.dataset.draftUrl, body(current()))) saved = current();
    });

    document.addEventListener("click", function (event) {
      var link = event.target.closest("a[data-load-submission]");
      if (!link || event.metaKey || event.ctrlKey || event.shiftKey) return;
      event.preventDefault();
      fetch(link.dataset.loadSubmission, { credentials: "same-origin" })
        .then(function (response) { if (!response.ok) throw new Error(); return response.text(); })
        .then(function (text) {
          replace(text);
          say("Loaded the code of #" + link.dataset.loadSubmission.match(/(\d+)\/source\/$/)[1] + ".");
          document.getElementById("editor").scrollIntoView({ behavior: "smooth" });
        })
        .catch(function () { window.location.href = link.href; });  // the page load does the same
    });

    document.body.addEventListener("htmx:beforeSwap", function (event) {
      if (event.detail.xhr.status === 400 && event.detail.xhr.getResponseHeader("HX-Retarget") === "#run-error-slot") {
        event.detail.shouldSwap = true;
        event.detail.isError = false;
      }
    });
    // The history table follows the panel: a row appears when a run is sent and changes when it is done.
    var workspace = document.getElementById("workspace");
    function panelState() {
      var outcome = document.querySelector("#result-panel #outcome");
      var link = document.querySelector("#result-panel a");
      return outcome ? (link ? link.textContent : "") + (outcome.hasAttribute("hx-get") ? " waiting" : " done") : "";
    }
    var shownState = panelState();
    document.body.addEventListener("htmx:afterSettle", function () {
      var state = panelState();
      if (!state || state === shownState || !window.htmx) return;
      shownState = state;
      window.htmx.ajax("GET", workspace.dataset.historyUrl, { target: "#history-section", swap: "outerHTML" });
    });
    document.body.addEventListener("htmx:afterSwap", function (event) {
      if (event.detail.target.id !== "result-panel") return;
      if (event.detail.xhr.status !== 200) return;
      document.getElementById("workspace").classList.add("has-result");
      saved = current();  // the server keeps what was sent as the draft
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
