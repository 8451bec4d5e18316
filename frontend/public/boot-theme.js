// Applies the stored colour theme (src/features/shell/theme.ts keeps it in
// localStorage under foya.theme) before the first paint, so that the
// static shell in index.html is drawn in the theme the app will use. A
// classic script of our own, not inline: foya serve's Content Security
// Policy runs script only from its files.
(function () {
  try {
    var t = localStorage.getItem("foya.theme");
    if (t === "light" || t === "dark") document.documentElement.dataset.theme = t;
  } catch (e) {
    // Storage refused (a private window): the shell follows the system.
  }
})();

// Notes when the static shell was first painted, in milliseconds since the
// Unix epoch: a frame's callback runs before its paint, a task it queues
// after. The desktop smoke test reads it from the front end's report.
(function () {
  if (typeof requestAnimationFrame !== "function") return;
  requestAnimationFrame(function () {
    setTimeout(function () {
      window.foyaShellPainted = performance.timeOrigin + performance.now();
    }, 0);
  });
})();
