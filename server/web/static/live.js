// A running match, live: the board as a spectator may see it, pushed by the server as moves are
// made (server-sent events from /api/matches/ID/live: the spectator view, drawn here by boards.js
// as the server draws it, through live_board.js). When the match is over the page reloads to show
// its result (and its replay, once every match sharing its seed is over too).
(function () {
  const section = document.getElementById("live");
  if (!section) return;
  const status = document.getElementById("live-status");
  const source = new EventSource(section.dataset.source);
  const facts = JSON.parse(document.getElementById("board-facts").textContent);

  source.addEventListener("frame", (message) => KingmakerLive.show(section, facts, JSON.parse(message.data)));
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
