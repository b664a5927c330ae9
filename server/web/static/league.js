// Keeps a league page current without a reload: polls the page's own live fragment every second
// and swaps it in, until the league has finished.
(function () {
  const live = document.getElementById("live");
  if (!live) return;
  const source = live.dataset.source;
  function finished() {
    const body = live.querySelector(".live-body");
    return body && body.dataset.finished === "yes";
  }
  async function refresh() {
    try {
      const response = await fetch(source, { cache: "no-store" });
      if (response.ok) live.innerHTML = await response.text();
    } catch (error) {
      // The site may be restarting: try again at the next tick.
    }
    if (!finished()) setTimeout(refresh, 1000);
  }
  if (!finished()) setTimeout(refresh, 1000);
})();
