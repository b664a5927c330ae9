// Counts down to a competition's deadline (by the server's clock, as the page was made), and
// reloads the page then, when the deadline has been applied and the entries frozen.
(function () {
  const shown = document.getElementById("countdown");
  if (!shown) return;
  const end = Date.now() + 1000 * Number(shown.dataset.seconds);
  function tick() {
    const left = Math.max(0, Math.round((end - Date.now()) / 1000));
    const days = Math.floor(left / 86400);
    const pad = (n) => String(n).padStart(2, "0");
    const clock = `${pad(Math.floor((left % 86400) / 3600))}:${pad(Math.floor((left % 3600) / 60))}:${pad(left % 60)}`;
    shown.textContent = (days ? `${days}d ` : "") + clock;
    if (left === 0) {
      clearInterval(timer);
      setTimeout(() => location.reload(), 2000);
    }
  }
  const timer = setInterval(tick, 1000);
  tick();
})();
