// A running match, live: the board as a spectator may see it, pushed by the server as moves are
// made (server-sent events from /api/matches/ID/live: the spectator view, drawn here by boards.js
// as the server draws it). When the match is over the page reloads to show its result (and its
// replay, once every match sharing its seed is over too).
(function () {
  const section = document.getElementById("live");
  if (!section) return;
  const status = document.getElementById("live-status");
  const source = new EventSource(section.dataset.source);
  const facts = JSON.parse(document.getElementById("board-facts").textContent);

  function item(text) {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }

  source.addEventListener("frame", (message) => {
    const data = JSON.parse(message.data);
    document.getElementById("board").innerHTML = KingmakerBoards.draw(section.dataset.game, data.view, data.bots, facts);
    document.getElementById("live-step").textContent = data.step;
    const acted = data.acted.map((seat) => item(`seat ${seat} (${data.bots[seat]}) played`));
    document.getElementById("live-acted").replaceChildren(...(acted.length ? acted : [item("the game is set up")]));
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
      for (const text of [seat, data.bots[seat], score]) row.insertCell().textContent = text;
      row.cells[2].className = "num score";
      if (data.to_act.includes(seat)) row.className = "acting";
    });
    status.textContent = data.over ? "the game is over; the result is being stored" : "live";
    section.dataset.step = data.step;
    section.dataset.state = "live";
  });
  source.addEventListener("note", (message) => {
    document.getElementById("live-note").textContent = JSON.parse(message.data).text;
  });
  source.addEventListener("hidden", (message) => {
    source.close();
    document.getElementById("board").replaceChildren();
    status.textContent = JSON.parse(message.data).text;
    section.dataset.state = "hidden";
  });
  source.addEventListener("end", () => {
    source.close();
    section.dataset.state = "ended";
    location.reload();
  });
})();
