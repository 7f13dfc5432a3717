/* Drag-to-match: drag (mouse or touch), click-to-move (WCAG 2.2 2.5.7) and keyboard, over plain <select>s. */
(function () {
  "use strict";

  function enhance(form) {
    if (form.dataset.enhanced) return;
    form.dataset.enhanced = "1";
    var live = form.querySelector("[data-match-live]");
    var table = form.querySelector(".match-selects");
    var selects = Array.prototype.slice.call(table.querySelectorAll("select"));
    var selected = null;
    var board = document.createElement("div");
    board.className = "match-board";
    board.innerHTML = '<div><h3>Items</h3><ul class="match-pool" data-drop=""><li><span class="target-label pool-label" role="button" tabindex="0">Unplaced items (choose an item, then a target)</span></li></ul></div>' +
      '<div><h3>Targets</h3><ul class="match-targets"></ul></div>';
    var pool = board.querySelector(".match-pool");
    var targetList = board.querySelector(".match-targets");
    var chips = {};
    var texts = {};

    selects.forEach(function (select) {
      select.required = false;
      var key = select.name.slice(5);
      var label = table.querySelector('label[for="' + select.id + '"]').textContent.trim();
      texts[key] = label;
      var chip = document.createElement("span");
      chip.className = "match-chip button";
      chip.setAttribute("role", "button");
      chip.setAttribute("tabindex", "0");
      chip.setAttribute("draggable", "true");
      chip.setAttribute("aria-pressed", "false");
      chip.dataset.item = key;
      chip.textContent = label;
      chips[key] = chip;
    });
    Array.prototype.slice.call(selects[0].options).forEach(function (option) {
      if (!option.value) return;
      texts[option.value] = option.textContent.trim();
      var li = document.createElement("li");
      li.className = "match-target";
      li.dataset.drop = option.value;
      li.innerHTML = '<span class="target-label" role="button" tabindex="0"></span><div class="slot"></div>';
      li.querySelector(".target-label").textContent = option.textContent.trim();
      targetList.appendChild(li);
    });
    table.hidden = true;
    table.parentNode.insertBefore(board, table);

    // The status line is visible to everyone, not only to screen readers; a warning is styled as one.
    function say(message, warning) {
      live.textContent = message;
      live.classList.toggle("warning", Boolean(warning));
    }
    function selectFor(key) { return form.querySelector('select[name="item-' + key + '"]'); }

    function render() {
      Object.keys(chips).forEach(function (key) {
        var value = selectFor(key).value;
        var home = value ? targetList.querySelector('[data-drop="' + value + '"] .slot') : null;
        var chip = chips[key];
        chip.setAttribute("aria-pressed", String(selected === key));
        chip.classList.toggle("unplaced", !value && form.dataset.checked === "1");
        chip.setAttribute("aria-label", texts[key] + (value ? ", placed on: " + texts[value] : ", not placed"));
        if (home) home.appendChild(chip);
        else pool.appendChild(chip);
      });
    }

    function place(itemKey, targetKey) {
      selects.forEach(function (select) {
        if (targetKey && select.value === targetKey && select !== selectFor(itemKey)) select.value = "";
      });
      selectFor(itemKey).value = targetKey;
      selected = null;
      render();
      say(targetKey ? texts[itemKey] + " placed on " + texts[targetKey] + "." : texts[itemKey] + " moved back to the unplaced items.");
      var next = pool.querySelector(".match-chip");
      (next || form.querySelector('button[type="submit"]')).focus();
    }

    function choose(key) {
      selected = selected === key ? null : key;
      render();
      say(selected ? "Selected " + texts[key] + ". Now choose its target." : "Selection cleared.");
      chips[key].focus();
    }

    function dropKey(element) {
      var zone = element && element.closest ? element.closest("[data-drop]") : null;
      return zone && board.contains(zone) ? zone.dataset.drop : null;
    }

    function activate(element) {
      if (element.classList.contains("match-chip")) return choose(element.dataset.item);
      var key = dropKey(element);
      if (key === null) return;
      if (!selected) return say("Choose an item first, then its target.", true);
      place(selected, key);
    }

    var suppressClick = false;
    board.addEventListener("click", function (event) {
      if (suppressClick) { suppressClick = false; return; }
      var element = event.target.closest(".match-chip, .target-label");
      if (element) activate(element);
    });
    board.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && selected) { selected = null; render(); say("Selection cleared."); return; }
      if (event.key !== "Enter" && event.key !== " ") return;
      var element = event.target.closest(".match-chip, .target-label");
      if (!element) return;
      event.preventDefault();
      activate(element);
    });

    // HTML5 drag and drop (mouse).
    board.addEventListener("dragstart", function (event) {
      var chip = event.target.closest && event.target.closest(".match-chip");
      if (!chip) return;
      event.dataTransfer.setData("text/plain", chip.dataset.item);
      event.dataTransfer.effectAllowed = "move";
      chip.classList.add("dragging");
    });
    board.addEventListener("dragend", function (event) {
      if (event.target.classList) event.target.classList.remove("dragging");
      board.querySelectorAll(".over").forEach(function (zone) { zone.classList.remove("over"); });
    });
    board.addEventListener("dragover", function (event) {
      var zone = event.target.closest && event.target.closest("[data-drop]");
      if (!zone) return;
      event.preventDefault();
      zone.classList.add("over");
    });
    board.addEventListener("dragleave", function (event) {
      var zone = event.target.closest && event.target.closest("[data-drop]");
      if (zone) zone.classList.remove("over");
    });
    board.addEventListener("drop", function (event) {
      var key = dropKey(event.target);
      var item = event.dataTransfer.getData("text/plain");
      if (key === null || !chips[item]) return;
      event.preventDefault();
      place(item, key);
    });

    // Touch and pen: pointer events, since HTML5 drag and drop does not fire for touch.
    var drag = null;
    board.addEventListener("pointerdown", function (event) {
      var chip = event.target.closest(".match-chip");
      if (!chip || event.pointerType === "mouse") return;
      drag = { chip: chip, x: event.clientX, y: event.clientY, ghost: null };
      try { chip.setPointerCapture(event.pointerId); } catch (error) { /* synthetic or ended pointer */ }
    });
    board.addEventListener("pointermove", function (event) {
      if (!drag) return;
      if (!drag.ghost && Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) < 8) return;
      if (!drag.ghost) {
        drag.ghost = drag.chip.cloneNode(true);
        drag.ghost.classList.add("match-ghost");
        document.body.appendChild(drag.ghost);
        drag.chip.classList.add("dragging");
      }
      drag.ghost.style.left = event.clientX + 8 + "px";
      drag.ghost.style.top = event.clientY + 8 + "px";
    });
    function endDrag(event) {
      if (!drag) return;
      var current = drag;
      drag = null;
      if (!current.ghost) return;
      current.ghost.remove();
      current.chip.classList.remove("dragging");
      suppressClick = true;
      var key = event.type === "pointerup" ? dropKey(document.elementFromPoint(event.clientX, event.clientY)) : null;
      if (key !== null) place(current.chip.dataset.item, key);
    }
    board.addEventListener("pointerup", endDrag);
    board.addEventListener("pointercancel", endDrag);

    document.addEventListener("submit", function (event) {
      if (event.target !== form) return;
      var missing = selects.filter(function (select) { return !select.value; }).length;
      if (missing) {
        event.preventDefault();
        event.stopPropagation();
        form.dataset.checked = "1";
        render();
        say("Place every item before checking: " + missing + " left.", true);
      }
    }, true);
    render();
  }

  function init(root) {
    var forms = root.querySelectorAll ? root.querySelectorAll("form[data-match]") : [];
    Array.prototype.forEach.call(forms, enhance);
  }

  if (window.htmx) window.htmx.onLoad(init);
  else document.addEventListener("DOMContentLoaded", function () { init(document); });
})();
