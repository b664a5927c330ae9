// The replay viewer. The server renders the step the address names (?step=N&view=full|seat:K), so
// the page reads without script; this steps through the others without a reload: it fetches one
// step at a time from /api/matches/ID/steps/N?view=V (cached), draws it as the server would, and
// keeps the address on the step shown, so it can be copied as a link to that moment.
(function () {
  const section = document.getElementById("replay");
  if (!section) return;
  const match = section.dataset.match;
  const steps = Number(section.dataset.steps);
  const view = document.getElementById("view");
  const cache = new Map();
  let step = Number(section.dataset.step);

  function load(n, v) {
    const key = n + "/" + v;
    if (!cache.has(key)) {
      cache.set(key, fetch(`/api/matches/${match}/steps/${n}?view=${v}`).then((r) => {
        if (!r.ok) { cache.delete(key); throw new Error(`step ${n}: HTTP ${r.status}`); }
        return r.json();
      }));
    }
    return cache.get(key);
  }

  function item(text, className) {
    const li = document.createElement("li");
    li.textContent = text;
    if (className) li.className = className;
    return li;
  }

  // What the signed-in author's own bots printed at this step (the server sends only theirs).
  function ownOutput(shown, n) {
    if (!shown.seats.length) {
      const none = document.createElement("p");
      none.className = "own-none";
      none.textContent = shown.note || (n ? "your bots printed nothing on stderr at this step" : "the game is set up");
      return [none];
    }
    return shown.seats.flatMap((o) => {
      const head = document.createElement("p");
      head.className = "own-seat";
      head.dataset.seat = o.seat;
      const cut = o.cut ? ", cut: the server keeps 2 KiB a step and 16 KiB a seat per match" : "";
      head.textContent = `seat ${o.seat} (${o.bot}), ${o.bytes} bytes${cut}:`;
      const text = document.createElement("pre");
      text.className = "own-text";
      text.dataset.seat = o.seat;
      text.textContent = o.text;
      return [head, text];
    });
  }

  function render(data) {
    document.getElementById("board").innerHTML = data.svg;
    document.getElementById("step").textContent = data.step;
    const moves = document.getElementById("moves");
    moves.replaceChildren();
    if (!data.moves.length) moves.append(item("the game is set up", "setup"));
    for (const m of data.moves) {
      const time = m.ms === null ? "time not recorded" : `${m.ms} ms`;
      const li = item(`seat ${m.seat} (${m.bot}): ${m.action} — ${time}${m.source !== "bot" && m.source !== "unknown" ? ", " + m.source : ""}`, "move");
      li.dataset.seat = m.seat;
      li.dataset.action = JSON.stringify(m.data);
      moves.append(li);
    }
    const own = document.getElementById("own-output");
    if (own && data.own_output) own.replaceChildren(...ownOutput(data.own_output, data.step));
    const chance = document.getElementById("chance");
    chance.replaceChildren(...(data.chance.length ? data.chance.map((c) => item(c.text, "event")) : [item("none")]));
    const scores = document.getElementById("scores");
    scores.replaceChildren();
    const head = scores.insertRow();
    for (const title of ["seat", "bot", data.score_name]) {
      const th = document.createElement("th");
      th.textContent = title;
      head.append(th);
    }
    data.scores.forEach((score, seat) => {
      const row = scores.insertRow();
      row.dataset.seat = seat;
      row.innerHTML = `<td>${seat}</td><td></td><td class="num score">${score}</td>`;
      row.cells[1].textContent = data.bots[seat];
      if (data.to_act.includes(seat)) row.className = "acting";
    });
    document.getElementById("final").textContent = data.final
      ? `final scores ${data.final.scores.join(", ")}; places ${data.final.ranks.join(", ")}` : "";
    links(data.step, data.view_name);
    section.dataset.shown = `${data.step}/${data.view_name}`;
  }

  function links(n, v) {
    const at = (k) => `?view=${v}&step=${k}`;
    document.getElementById("first").href = at(0);
    document.getElementById("prev").href = at(Math.max(0, n - 1));
    document.getElementById("next").href = at(Math.min(steps, n + 1));
    document.getElementById("last").href = at(steps);
    history.replaceState(null, "", at(n));
  }

  async function go(n) {
    step = Math.max(0, Math.min(steps, n));
    const wanted = step;
    const data = await load(wanted, view.value);
    if (wanted === step && data.view_name === view.value) render(data);
    if (step < steps) load(step + 1, view.value);  // prefetch the next step
  }

  const targets = { first: () => 0, prev: () => step - 1, next: () => step + 1, last: () => steps };
  for (const [id, target] of Object.entries(targets)) {
    document.getElementById(id).addEventListener("click", (event) => {
      if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey) return;  // new tab
      event.preventDefault();
      go(target());
    });
  }
  view.onchange = () => go(step);
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "SELECT" || event.altKey || event.ctrlKey || event.metaKey) return;
    const moves = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: steps };
    if (event.key in moves) { event.preventDefault(); go(moves[event.key]); }
  });
  if (step < steps) load(step + 1, view.value);
})();
