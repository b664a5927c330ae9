// A person's seat (play_table.html): follows /api/play/events (server-sent events: the table at
// every change, the other seats' moves included as they happen), draws the seat's board and its
// legal actions in labelled groups (each a button: a click is the choice; a click on the board's
// cell, advisor or region, or on a card's button, narrows them to the actions that touch it),
// counts the bank down, and posts a click to /api/play/answer; a refusal is shown with its reason.
(function () {
  const section = document.getElementById("play");
  if (!section) return;
  const csrf = section.dataset.csrf;
  let view = null;
  let bankAt = null; // [ms left, when read]
  let marked = new Set(); // the marks clicked (on the board or as buttons): the choices holding them all show
  let chosenFor = "";

  function selector(mark) {
    // "row=1,column=2" is the board element [data-row="1"][data-column="2"]
    return mark.split(",").map((pair) => {
      const [key, value] = pair.split("=");
      return `[data-${key}="${CSS.escape(value)}"]`;
    }).join("");
  }

  function choices(data) {
    // the legal actions in groups (play_choices.py), each a button whose click sends its index
    const full = new Map(data.actions.map((action) => [action.index, action.text]));
    const list = document.getElementById("play-actions");
    list.replaceChildren(
      ...data.groups.map((group) => {
        const fieldset = document.createElement("fieldset");
        fieldset.className = "play-group";
        const legend = document.createElement("legend");
        legend.textContent = group.label;
        fieldset.append(legend);
        for (const choice of group.choices) {
          const button = document.createElement("button");
          button.type = "button";
          button.className = "play-action";
          button.dataset.index = choice.index;
          button.dataset.marks = choice.marks.join(" ");
          button.textContent = choice.text;
          button.title = full.get(choice.index) || "";
          button.addEventListener("click", () => choose(data.request_id, choice.index));
          fieldset.append(button);
        }
        return fieldset;
      }),
    );
    const marks = document.getElementById("play-marks");
    marks.replaceChildren(
      ...data.marks.map((mark) => {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "play-mark";
        button.dataset.mark = mark.mark;
        button.textContent = mark.label;
        button.addEventListener("click", () => toggle(mark.mark));
        return button;
      }),
    );
    const board = document.getElementById("board");
    for (const mark of new Set(data.groups.flatMap((group) => group.choices.flatMap((choice) => choice.marks)))) {
      const target = board.querySelector(selector(mark));
      if (target) {
        target.classList.add("play-target");
        target.dataset.playMark = mark;
      }
    }
    narrow();
  }

  function toggle(mark) {
    if (marked.has(mark)) marked.delete(mark);
    else marked.add(mark);
    narrow();
  }

  function narrow() {
    for (const button of document.querySelectorAll(".play-action")) {
      const marks = button.dataset.marks.split(" ");
      button.hidden = ![...marked].every((mark) => marks.includes(mark));
    }
    for (const group of document.querySelectorAll(".play-group"))
      group.hidden = !group.querySelector(".play-action:not([hidden])");
    for (const element of document.querySelectorAll("[data-play-mark], .play-mark"))
      element.classList.toggle("chosen", marked.has(element.dataset.playMark || element.dataset.mark));
    document.getElementById("play-unmark").hidden = marked.size === 0;
  }

  function item(text) {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }

  function clock(ms) {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  }

  function tick() {
    const bank = document.getElementById("bank");
    if (bankAt === null) {
      bank.textContent = view && view.control.bank_ms !== undefined && !view.end ? "(the others are playing)" : "–";
      return;
    }
    bank.textContent = clock(bankAt[0] - (Date.now() - bankAt[1]));
  }

  function seats(data) {
    const table = document.getElementById("play-seats");
    table.replaceChildren();
    const head = table.insertRow();
    for (const title of ["seat", "who", "result"]) {
      const th = document.createElement("th");
      th.textContent = title;
      head.append(th);
    }
    data.names.forEach((name, seat) => {
      const row = table.insertRow();
      const result = data.end ? data.end.results.find((r) => r.seat === seat) : null;
      const text = result ? `rank ${result.rank}, score ${result.score} (${result.end_reason})` : "";
      for (const cell of [seat, seat === data.seat ? `${name} (you)` : name, text]) row.insertCell().textContent = cell;
      if (seat === data.seat) row.className = "acting";
    });
  }

  function status(data) {
    if (data.failure) return `the table ended: ${data.failure}`;
    if (data.end) return `the match is over: you ${data.end.end_reason === "finished" ? "finished" : "lost the seat (" + data.end.end_reason + ")"}`;
    if (data.request_id !== null) return "your move";
    return data.match_id ? "the bots are playing…" : "waiting for the server…";
  }

  function show(data) {
    view = data;
    section.dataset.version = data.version;
    section.dataset.request = data.request_id === null ? "" : data.request_id;
    section.dataset.over = data.end || data.failure ? "yes" : "";
    section.dataset.endReason = data.end ? data.end.end_reason : "";
    section.dataset.match = data.match_id || "";
    document.getElementById("play-status").textContent = status(data);
    if (data.control.increment_ms !== undefined) document.getElementById("increment").textContent = Math.round(data.control.increment_ms / 1000);
    if (data.svg) document.getElementById("board").innerHTML = data.svg;
    seats(data);
    if (String(data.request_id) !== chosenFor) {
      marked = new Set(); // a new decision: nothing narrowed yet
      chosenFor = String(data.request_id);
    }
    choices(data);
    document.getElementById("play-notes").replaceChildren(...data.notes.map(item));
    document.getElementById("play-moves").replaceChildren(...data.moves.slice().reverse().map(item));
    section.dataset.step = data.step;
    bankAt = data.bank_ms === null ? null : [data.bank_ms, Date.now()];
    tick();
  }

  function refuse(text) {
    const refusal = document.getElementById("play-refusal");
    refusal.textContent = text;
    refusal.hidden = !text;
  }

  async function choose(requestId, index) {
    for (const button of document.querySelectorAll(".play-action")) button.disabled = true;
    const answer = await fetch("/api/play/answer", {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ request_id: requestId, index }),
    });
    if (answer.ok) {
      refuse("");
      return;
    }
    const body = await answer.json().catch(() => ({ error: answer.statusText }));
    refuse(`refused: ${body.error}`);
    for (const button of document.querySelectorAll(".play-action")) button.disabled = false;
  }

  function follow() {
    const events = new EventSource("/api/play/events");
    events.addEventListener("table", (message) => {
      const data = JSON.parse(message.data);
      show(data);
      if (data.end || data.failure) events.close();
    });
    events.addEventListener("error", () => {
      // EventSource tries again by itself (the site restarting); a table gone answers 404
      if (events.readyState === EventSource.CLOSED && !(view && (view.end || view.failure)))
        document.getElementById("play-status").textContent = "no table here any more";
    });
  }

  document.getElementById("board").addEventListener("click", (event) => {
    const target = event.target.closest("[data-play-mark]");
    if (target) toggle(target.dataset.playMark);
  });
  document.getElementById("play-unmark").addEventListener("click", () => {
    marked = new Set();
    narrow();
  });
  setInterval(tick, 500);
  follow();
})();
