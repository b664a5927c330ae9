// What the live pages share (live.js: one match; league_watch.js: a league's matches, one after
// another): a frame of a running match (server-sent, the spectator view) drawn on the page, the
// board by boards.js, with the last decision and the scores.
(function () {
  function item(text) {
    const li = document.createElement("li");
    li.textContent = text;
    return li;
  }

  function show(section, facts, data) {
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
    document.getElementById("live-status").textContent = data.over ? "the game is over; the result is being stored" : "live";
    section.dataset.step = data.step;
    section.dataset.state = "live";
  }

  // The board and its side emptied, for the next match.
  function clear(section) {
    document.getElementById("board").replaceChildren();
    document.getElementById("live-step").textContent = "–";
    document.getElementById("live-acted").replaceChildren(item("none yet"));
    document.getElementById("scores").replaceChildren();
    section.dataset.step = "";
  }

  window.KingmakerLive = { show, clear, item };
})();
