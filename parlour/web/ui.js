// Small DOM helpers. Text always goes in through textContent, never as HTML.

export const $ = (sel, root = document) => root.querySelector(sel);
export const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];

/**
 * el("button", {class: "primary", onclick: fn, "aria-label": "Play"}, "text", childNode)
 * Strings become text nodes; `null`/`false` children are skipped.
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) listen(node, key, value);
    else if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style") node.style.cssText = value;
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

const SVG_NS = "http://www.w3.org/2000/svg";
export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) listen(node, key, value);
    // The page's Content-Security-Policy blocks style attributes; CSSOM writes are allowed.
    else if (key === "style") node.style.cssText = value;
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Handlers are `on…` properties, listed on the node, so that `morph` can hand them over. */
function listen(node, key, handler) {
  node[key] = handler;
  (node.handlers ??= []).push(key);
}

/**
 * Make the children of `node` look like `children` while keeping the elements that stay: a
 * button under the pointer or with keyboard focus survives a re-render (a click that lands
 * while a presence update redraws the table is not lost), and so does an opened <details>.
 */
export function morph(node, ...children) {
  const next = document.createDocumentFragment();
  append(next, children);
  patchChildren(node, [...next.childNodes]);
  return node;
}

function patchChildren(node, wanted) {
  const current = [...node.childNodes];
  wanted.forEach((want, i) => {
    const have = current[i];
    if (!have) node.append(want);
    else if (sameKind(have, want)) patch(have, want);
    else node.replaceChild(want, have);
  });
  for (const extra of current.slice(wanted.length)) extra.remove();
}

// `data-key` names a control that must never be patched into another one (and so keep the focus
// under other words: Enter on "Add easy bot" for the last seat left it on "Just watch"); drawn anew,
// it takes the focus back (app.js, keepFocus).
const sameKind = (a, b) =>
  a.nodeType === b.nodeType && a.nodeName === b.nodeName && a.dataset?.id === b.dataset?.id && a.dataset?.line === b.dataset?.line && a.dataset?.key === b.dataset?.key;

function patch(have, want) {
  if (have.nodeType !== Node.ELEMENT_NODE) {
    if (have.data !== want.data) have.data = want.data;
    return;
  }
  // An element whose renderer keeps its children up to date itself (the Dots board): same key, leave them.
  const kept = want.dataset.keep !== undefined && have.dataset.keep === want.dataset.keep;
  for (const { name, value } of want.attributes) {
    if (have.getAttribute(name) === value) continue;
    // The page's Content-Security-Policy blocks writing a style attribute; a CSSOM write is allowed.
    if (name === "style") have.style.cssText = value;
    else have.setAttribute(name, value);
  }
  for (const { name } of [...have.attributes]) {
    if (!want.hasAttribute(name) && !(name === "open" && have.nodeName === "DETAILS")) have.removeAttribute(name);
  }
  for (const key of new Set([...(have.handlers ?? []), ...(want.handlers ?? [])])) have[key] = want[key] ?? null;
  have.handlers = want.handlers;
  if (!kept) patchChildren(have, [...want.childNodes]);
}

/**
 * A keydown handler for a group with one tab stop (a roving tabindex): the arrow keys, Home and End
 * move the focus, and the tab stop with it, between the group's enabled buttons.
 */
export function arrowKeys(event) {
  const items = [...event.currentTarget.querySelectorAll("button:not([disabled])")];
  const at = items.indexOf(document.activeElement);
  if (at < 0) return;
  const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
  const to = event.key === "Home" ? 0 : event.key === "End" ? items.length - 1 : step ? Math.min(Math.max(at + step, 0), items.length - 1) : null;
  if (to === null) return;
  event.preventDefault();
  items[at].tabIndex = -1;
  items[to].tabIndex = 0;
  items[to].focus();
}

/** Mark the edges of a sideways-scrolling list with more beyond them (`more-left`, `more-right`; the
 * stylesheet fades them): a phone's docked hand shows 7 of Cheat's 17 cards and had no scrollbar. */
export function markOverflow(list) {
  list.classList.toggle("more-left", list.scrollLeft > 1);
  list.classList.toggle("more-right", list.scrollLeft + list.clientWidth < list.scrollWidth - 1);
}

/** The same for a list scrolling up and down (`more-above`, `more-below`): beside the table, a long
 * Players panel cut its last row in half, buttons and all, with nothing to say it went on. */
export function markOverflowY(list) {
  list.classList.toggle("more-above", list.scrollTop > 1);
  list.classList.toggle("more-below", list.scrollTop + list.clientHeight < list.scrollHeight - 1);
}

/** Replace all children of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export function showScreen(id) {
  for (const screen of $$(".screen")) screen.hidden = screen.id !== id;
}

/**
 * A short-lived notice. kind: "info" | "good" | "bad". Toasts queue: one shows at a time, for its
 * full time when nothing waits, else at least READ_MS, so a newer toast never hides an older one
 * before it could be read. `droppable` toasts (game events, also in the game log) make way when
 * the queue backs up, and a newer one replaces any still waiting: a quick table would otherwise show
 * moves several turns old.
 */
const READ_MS = 1800;
const toastQueue = [];
let toastShown = null;

/** Toasts for the eyes only, since a live region already says the same: a chat line (the chat's list)
 * and one's turn (the table's announcements, app.js). */
const SEEN_ONLY = new Set(["chat", "turn"]);

export function toast(text, kind = "info", ms = 3000, droppable = false) {
  if (droppable) {
    for (let i = toastQueue.length - 1; i >= 0; i--) if (toastQueue[i].droppable) toastQueue.splice(i, 1);
  }
  toastQueue.push({ text, kind, ms, droppable });
  while (toastQueue.length > 4) {
    const i = toastQueue.findIndex((t) => t.droppable);
    toastQueue.splice(i >= 0 ? i : 0, 1);
  }
  if (!toastShown) nextToast();
}

/**
 * What one server message said, as one toast: [{text, kind, keep}] from its events, joined ("Bo
 * challenged and lost: Ada played fair · Bo drew 6"). A toast each held the next for READ_MS, so the
 * second, told a moment later, trailed the table. Bad news wins the colour, then good; kept if any is
 * (a round won), and given a second more to read for each line past the first.
 */
export function toastAll(notes) {
  if (!notes.length) return;
  const kind = notes.find((n) => n.kind === "bad")?.kind ?? notes.find((n) => n.kind && n.kind !== "info")?.kind ?? "info";
  const keep = notes.some((n) => n.keep);
  toast(notes.map((n) => n.text).join(" · "), kind, 2500 + 1000 * (notes.length - 1), !keep);
}

const NAME_MAX = 16; // characters as they show, as the server counts them (rooms/validate.py)
const letters = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Hold a name field to NAME_MAX characters as they show (an emoji made of several, 👩‍🚀, is one: the
 * field's maxlength counted it as five), cutting what is typed past them; true at the limit. */
export function holdName(field) {
  const shown = [...letters.segment(field.value)].map((s) => s.segment);
  if (shown.length > NAME_MAX) field.value = shown.slice(0, NAME_MAX).join("");
  return shown.length >= NAME_MAX;
}

/** A phone held sideways: wider than a phone in portrait, but short (styles.css has the same query). */
export const SIDEWAYS = "(min-width: 601px) and (max-height: 520px)";

/** "1 card", "3 cards". */
export const cards = (n) => `${n} ${n === 1 ? "card" : "cards"}`;

/** The server's words ("capacity must be …") as a sentence on screen. */
export const sentence = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** An error answering what this person just did: shown at once, over whatever toast is up, and in
 * place of an earlier answer still waiting (a dozen quick wrong passwords showed their errors one after
 * another for 20 s, the last answer long after its click). The server's words start with a capital. */
export function answer(text) {
  for (let i = toastQueue.length - 1; i >= 0; i--) if (toastQueue[i].answer) toastQueue.splice(i, 1);
  toastQueue.unshift({ text: sentence(text), kind: "bad", ms: 4000, droppable: false, answer: true });
  if (toastShown) toastShown.end();
  else nextToast();
}

function nextToast() {
  const box = $("#toasts");
  const next = toastQueue.shift();
  if (!next) {
    toastShown = null;
    return;
  }
  const voice = SEEN_ONLY.has(next.kind) ? { "aria-hidden": "true" } : { role: next.kind === "bad" ? "alert" : "status" };
  const item = el("div", { class: `toast ${next.kind}`, ...voice }, next.text);
  box.replaceChildren(item);
  const shown = (toastShown = { item, since: Date.now() });
  const end = (shown.end = () => {
    if (toastShown !== shown) return;
    item.classList.add("gone");
    setTimeout(() => item.remove(), 400);
    nextToast();
  });
  // Leave early (after READ_MS) only when another toast is waiting.
  const check = () => {
    if (toastShown !== shown) return;
    const age = Date.now() - shown.since;
    if (age >= next.ms || (toastQueue.length && age >= READ_MS)) end();
    else setTimeout(check, Math.min(250, next.ms - age));
  };
  setTimeout(check, Math.min(READ_MS, next.ms));
}

export function clearToasts() {
  toastQueue.length = 0;
  toastShown = null;
  $("#toasts").replaceChildren();
}

/**
 * A modal choice. buttons: [{label, value, class?}]; resolves to the chosen value
 * (or null when dismissed with Escape). `body` is a Node or a string.
 */
export function choose(title, body, buttons, { turn = false } = {}) {
  const dialog = $("#dialog");
  dialog.dataset.turn = turn ? "yes" : ""; // a question about one's move: closeTurnDialog
  fill($("#dialog-title"), title);
  fill($("#dialog-body"), body ?? "");
  fill(
    $("#dialog-buttons"),
    // Only a button that submits what the dialog holds checks its fields (`validate`): with a field out
    // of range, Cancel did nothing but point at it.
    buttons.map((b) => el("button", { value: b.value, class: b.class, "aria-label": b.aria, formnovalidate: !b.validate }, b.label)),
  );
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue || null), { once: true });
    dialog.returnValue = "";
    dialog.showModal();
  });
}

export async function confirmDialog(title, text, yes = "Yes", { kind = "danger" } = {}) {
  const chosen = await choose(title, text, [
    { label: "Cancel", value: "no" },
    { label: yes, value: "yes", class: kind },
  ]);
  return chosen === "yes";
}

/** Close the modal if one is open (e.g. when the state it asked about moved on). */
export function closeDialog() {
  const dialog = $("#dialog");
  if (dialog.open) dialog.close("");
}

/** Close a question about one's move (a Wild's colour) once the turn has gone: the clock ran out, and
 * the colour picked after it was refused as "not your turn", the card still in hand. */
export function closeTurnDialog() {
  if ($("#dialog").dataset.turn) closeDialog();
}

const initialsOf = new Map(); // name → its initials

/** Initials for a display name, used as a non-colour cue. */
export function initials(name) {
  // Kept per name: a Dots board asks once for each box it draws, and the names are few.
  let found = initialsOf.get(name);
  if (found === undefined) {
    // Whole characters as they show: "👩‍🚀 Ada" had been cut inside its emoji ("\ud83dA" drew "�A").
    const first = (word) => [...letters.segment(word)].map((s) => s.segment);
    const words = String(name || "?").trim().split(/\s+/);
    found = (words.length > 1 ? first(words[0])[0] + first(words[1])[0] : first(words[0]).slice(0, 2).join("")).toUpperCase();
    initialsOf.set(name, found);
  }
  return found;
}

/** Per-seat colour and fill pattern, so colour is never the only cue. */
const SEAT_COLOURS = ["#e4572e", "#29a3dd", "#f3a712", "#6bbf59", "#b06fd8", "#ef5da8", "#2ec4b6", "#c0c0c0", "#ff8c42", "#7d8ce0"];
export const seatColour = (seat) => SEAT_COLOURS[seat % SEAT_COLOURS.length];
