// Composing a turn on a game page by clicking: a guest from your hand, then a free chair on
// the board (one or two placements), or the bar. The turn is written into the page's turn
// box and its points are previewed by the server before you press "Play this turn", with
// the birthday nation or `noshrink` chosen beside it (the server adds those to the turn).
// Everything here is an enhancement: without it the page's buttons and box still play.
// Its words are the page's, in the reader's language: the composer's data attributes hold
// them ("{turn}" marks where the turn goes), and the server's preview says its own sentence.
"use strict";
(function () {
  const composer = document.getElementById("composer");
  const box = document.getElementById("turn");
  if (!composer || !box) return;
  composer.hidden = false;
  const form = box.form;
  const preview = document.getElementById("preview");
  const jokerNation = document.getElementById("joker-nation");
  const modifiers = [document.getElementById("birthday"), document.getElementById("noshrink")]
    .filter((control) => control);
  const tiles = Array.from(composer.querySelectorAll("button[data-tile]"));
  const chairs = Array.from(document.querySelectorAll("svg g.chair.free"));
  let chosen = null;
  let placements = [];
  // The board holds buttons now: a group of controls, no longer one picture.
  const board = document.querySelector(".board svg");
  if (board) board.setAttribute("role", "group");

  function choose(button) {
    tiles.forEach((b) => b.setAttribute("aria-pressed", String(b === button)));
    chosen = button;
  }

  function write(text) {
    box.value = text;
    ask(text);
  }

  // What was last sent for scoring: leaving the box for the play button fires "change"
  // again, and asking twice would reflow the page under the pointer.
  let asked = "";

  function ask(text) {
    const body = new FormData();
    body.set("csrf", form.querySelector("input[name=csrf]").value);
    body.set("version", form.querySelector("input[name=version]").value);
    body.set("turn", text);
    modifiers.forEach((control) => {
      if (control.type !== "checkbox" || control.checked) body.set(control.name, control.value);
    });
    const question = new URLSearchParams(body).toString();
    if (question === asked) return;
    asked = question;
    delete preview.dataset.points;
    if (!text) { preview.textContent = ""; return; }
    preview.textContent = composer.dataset.scoring.replace("{turn}", text);
    fetch(composer.dataset.preview, { method: "POST", body: body, credentials: "same-origin" })
      .then((response) => response.json())
      .then((answer) => {
        if (question !== asked) return;  // a later question's answer is the one to show
        if (answer.error) {
          preview.textContent = text + ": " + answer.message;
        } else {
          preview.textContent = answer.said;
          preview.dataset.points = String(answer.points);
        }
      })
      .catch(() => {
        if (question === asked) preview.textContent = composer.dataset.unreachable;
      });
  }

  function seat(chair) {
    if (!chosen || placements.length >= 2 || chair.classList.contains("pending")) return;
    let tile = chosen.dataset.tile;
    if (tile.startsWith("J") && jokerNation.value) tile += "=" + jokerNation.value;
    placements.push(tile + "@#" + chair.id.replace("chair-", ""));
    chair.classList.add("pending");
    chosen.disabled = true;
    choose(null);
    write(placements.join(" "));
  }

  function reset() {
    placements = [];
    chairs.forEach((c) => c.classList.remove("pending"));
    tiles.forEach((b) => { b.disabled = false; });
    choose(null);
    write("");
  }

  tiles.forEach((button) => button.addEventListener("click", () => choose(button)));
  chairs.forEach((chair) => {
    const title = chair.querySelector("title");
    chair.setAttribute("tabindex", "0");
    chair.setAttribute("role", "button");
    chair.setAttribute("aria-label", title ? title.textContent : chair.id);
    chair.addEventListener("click", () => seat(chair));
    chair.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") { event.preventDefault(); seat(chair); }
    });
  });
  document.getElementById("to-bar").addEventListener("click", () => {
    if (!chosen) return;
    const tile = chosen.dataset.tile;
    reset();
    write("bar " + tile);
  });
  document.getElementById("start-again").addEventListener("click", reset);
  box.addEventListener("change", () => ask(box.value.trim()));
  modifiers.forEach((control) => control.addEventListener("change", () => ask(box.value.trim())));
})();
