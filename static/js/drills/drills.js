/* Drills: arrow keys across code lines, focus after an htmx swap, follow-ups one by one, the mock timer. */
(function () {
  "use strict";

  function spotLines(root) {
    root.querySelectorAll("[data-spot-lines]").forEach(function (list) {
      list.addEventListener("keydown", function (event) {
        var buttons = Array.prototype.slice.call(list.querySelectorAll("button"));
        var index = buttons.indexOf(document.activeElement);
        if (index < 0) return;
        var next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: buttons.length - 1 }[event.key];
        if (next === undefined) return;
        event.preventDefault();
        buttons[Math.max(0, Math.min(buttons.length - 1, next))].focus();
      });
    });
  }

  function followUps(root) {
    root.querySelectorAll("[data-follow-ups]").forEach(function (list) {
      var items = Array.prototype.slice.call(list.children);
      items.forEach(function (item, index) {
        if (index > 0) item.hidden = true;
        var details = item.querySelector("details");
        details.addEventListener("toggle", function () {
          if (details.open && items[index + 1]) items[index + 1].hidden = false;
        });
      });
    });
  }

  function mockTimer(root) {
    root.querySelectorAll(".mock-timer[data-deadline]").forEach(function (timer) {
      var deadline = Number(timer.dataset.deadline);
      var text = timer.querySelector("[data-timer-text]");
      var finish = document.querySelector("form[data-mock-finish]");
      function tick() {
        var left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
        text.textContent = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
        timer.classList.toggle("low", left < 60);
        if (left === 0) {
          clearInterval(handle);
          if (finish) finish.submit();
        }
      }
      var handle = setInterval(tick, 1000);
      tick();
    });
  }

  // Interview cards from the keyboard, as in Anki: Ctrl/Cmd+Enter in the answer (or Space outside any field)
  // saves and reveals, 1-4 rate, U undoes the last rating. Keys typed into a text field stay text.
  function typingIn(target) {
    return !!(target.closest && target.closest("textarea, select, [contenteditable], input:not([type=checkbox]):not([type=radio])"));
  }

  document.addEventListener("keydown", function (event) {
    var card = document.querySelector(".card-drill");
    if (!card || event.defaultPrevented || event.altKey) return;
    var target = event.target;
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && target.matches && target.matches("[data-card-text]")) {
      event.preventDefault();
      target.form.requestSubmit();
      return;
    }
    if (event.ctrlKey || event.metaKey || typingIn(target)) return;
    var onControl = target.closest && target.closest("button, a, input, summary, label");
    if (event.key === " " && !onControl) {
      var text = card.querySelector("[data-card-text]");
      if (!text) return;
      event.preventDefault();
      if (text.value.trim()) text.form.requestSubmit(card.querySelector("[data-reveal]"));
      else text.focus();
      return;
    }
    var button = /^[1-4]$/.test(event.key) && card.querySelector('.ratings button[value="' + event.key + '"]');
    if (!button && (event.key === "u" || event.key === "U")) button = card.querySelector("[data-undo]");
    if (button) {
      event.preventDefault();
      button.click();
    }
  });

  function init(root) {
    spotLines(root);
    followUps(root);
    mockTimer(root);
    var focusTarget = root.querySelector && root.querySelector("[data-focus-on-swap]");
    if (focusTarget && root !== document.body && root !== document) focusTarget.focus();
  }

  // A refused post (400) keeps the page as it is and says why, next to the form that sent it.
  document.addEventListener("htmx:responseError", function (event) {
    var xhr = event.detail.xhr;
    var form = event.detail.elt.closest("form") || event.detail.elt;
    var box = form.querySelector("[data-error]");
    if (!box) {
      box = document.createElement("p");
      box.className = "form-error";
      box.setAttribute("role", "alert");
      box.dataset.error = "";
      form.appendChild(box);
    }
    box.textContent = xhr.status === 400 ? xhr.responseText : "Something went wrong (" + xhr.status + "); reload the page.";
  });

  if (window.htmx) window.htmx.onLoad(init);
  else document.addEventListener("DOMContentLoaded", function () { init(document); });
})();
