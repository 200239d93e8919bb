// Theme: the system's light or dark, or the one picked with the top bar's button
// (auto → light → dark → auto), remembered per browser. Imported first by app.js.

const THEMES = ["auto", "light", "dark"];
const button = document.querySelector("#theme");

function showTheme() {
  const theme = localStorage.getItem("parlour.theme") ?? "auto";
  if (theme === "auto") delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = theme;
  button.textContent = { auto: "◐ auto", light: "☀ light", dark: "☾ dark" }[theme];
  const next = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
  const said = (t) => (t === "auto" ? "auto (follows the system)" : t);
  button.setAttribute("aria-label", `Theme: ${said(theme)}. Switch to ${said(next)}`);
}

// A theme picked in another tab of this browser applies here too.
addEventListener("storage", (e) => e.key === "parlour.theme" && showTheme());

button.addEventListener("click", () => {
  const now = localStorage.getItem("parlour.theme") ?? "auto";
  const next = THEMES[(THEMES.indexOf(now) + 1) % THEMES.length];
  if (next === "auto") localStorage.removeItem("parlour.theme");
  else localStorage.setItem("parlour.theme", next);
  showTheme();
});
showTheme();
