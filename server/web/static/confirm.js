// A form with data-confirm asks before it is sent (rotating a token ends every session made
// with the old one, and `kingmaker login` needs the new one).
(function () {
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
})();
