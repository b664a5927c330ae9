// Keeps a league page current without a reload and without polling: the server pushes the page's
// live part (server-sent events from /leagues/NAME/events) each time the league's matches change,
// until the league has finished.
(function () {
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const body = live.querySelector(".live-body");
  if (body && body.dataset.finished === "yes") return;
  const source = new EventSource(live.dataset.events);
  source.addEventListener("update", (message) => { live.innerHTML = JSON.parse(message.data); });
  source.addEventListener("finished", () => source.close());
})();
