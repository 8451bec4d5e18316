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
