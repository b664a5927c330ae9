// A league's matches live, one after another, on one connection (server-sent events from
// /api/leagues/NAME/live): the match the server names (the one running longest that may be shown),
// its frames drawn by live_board.js, then the next match, without a reload, until the league has
// finished.
(function () {
  const section = document.getElementById("live");
  if (!section || !window.EventSource) return;
  const status = document.getElementById("live-status");
  const heading = document.getElementById("live-match");
  const source = new EventSource(section.dataset.source);
  const facts = JSON.parse(document.getElementById("board-facts").textContent);
  const data = (message) => JSON.parse(message.data);

  source.addEventListener("match", (message) => {
    const match = data(message);
    KingmakerLive.clear(section);
    const link = document.createElement("a");
    link.href = match.url;
    link.textContent = `match ${match.match_id}`;
    heading.replaceChildren(link, `: ${match.bots.join(" · ")}`);
    status.textContent = "waiting for the first move";
    section.dataset.match = match.match_id;
    section.dataset.state = "match";
  });
  source.addEventListener("frame", (message) => KingmakerLive.show(section, facts, data(message)));
  source.addEventListener("note", (message) => {
    document.getElementById("live-note").textContent = data(message).text;
  });
  source.addEventListener("end", (message) => {
    status.textContent = `match ${data(message).match_id} is ${data(message).status}; on to the next`;
    section.dataset.state = "ended";
  });
  source.addEventListener("hidden", (message) => {
    const hidden = data(message);
    if (String(hidden.match_id) === section.dataset.match) {  // hidden while shown: nothing more of it
      KingmakerLive.clear(section);
      heading.textContent = "waiting for a match";
      section.dataset.state = "hidden";
    }
    document.getElementById("live-hidden").append(KingmakerLive.item(`match ${hidden.match_id} is not shown: ${hidden.text}`));
  });
  source.addEventListener("idle", (message) => {
    KingmakerLive.clear(section);
    heading.textContent = "no match in play";
    status.textContent = data(message).text;
    section.dataset.match = "";
    section.dataset.state = "idle";
  });
  source.addEventListener("finished", () => {
    source.close();
    KingmakerLive.clear(section);
    heading.textContent = "the league has finished";
    status.textContent = "finished";
    section.dataset.match = "";
    section.dataset.state = "finished";
  });
})();
