// The console's live version: each step the server pushes (server-sent events from WatchVersion)
// appends the build's new output and updates the status; the page reloads once the version is
// final, to show its whole record.
(function () {
  const live = document.getElementById("live");
  if (!live || live.dataset.final === "yes") return;
  const log = document.getElementById("build-log");
  const status = document.getElementById("version-status");
  const reason = document.getElementById("version-reason");
  const clock = document.getElementById("build-clock");
  const ab = document.getElementById("ab");
  const validation = document.querySelector("#validation tbody");
  // Each validation match as it is played (text only: the bot's stderr is never parsed as HTML).
  function showValidation(played) {
    validation.replaceChildren(...played.map((match) => {
      const row = document.createElement("tr");
      const ended = `${match.end_reason} ${match.detail}`;
      for (const text of [match.game, match.players, match.seat, ended, match.passed ? "yes" : "no"]) {
        const cell = document.createElement("td");
        cell.textContent = String(text);
        row.append(cell);
      }
      const stderr = document.createElement("td");
      const pre = document.createElement("pre");
      pre.className = "log";
      pre.textContent = match.stderr_tail;
      stderr.append(pre);
      row.append(stderr);
      return row;
    }));
  }
  const source = new EventSource(live.dataset.events);
  let first = true;
  source.onmessage = (event) => {
    const step = JSON.parse(event.data);
    if (step.build_output) {
      if (first) log.textContent = "";  // the stream sends the log from its start
      log.textContent += step.build_output;
    }
    first = false;
    status.textContent = step.status;
    reason.textContent = step.status_reason ? ": " + step.status_reason : "";
    clock.textContent = step.build_clock ? `(build: ${step.build_clock})` : "";  // its limit is CPU time
    if (step.validation.length) showValidation(step.validation);
    if (step.ab_games.length) {  // each game's duel in plain words, side by side
      ab.replaceChildren(...step.ab_games.map((game) => {
        const item = document.createElement("li");
        item.textContent = game.words || game.reason;
        return item;
      }));
    }
    if (step.final) { source.close(); setTimeout(() => location.reload(), 500); }
  };
  source.addEventListener("failure", (event) => { source.close(); reason.textContent = ": " + JSON.parse(event.data).error; });
})();
