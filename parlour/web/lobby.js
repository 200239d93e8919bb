// Start screen: name, join by code, create with settings, quick play, public rooms.

import { GAMES, title } from "./catalog.js";
import { capacityField, catchDelayField, readCatchDelay, readSettings, settingsFields } from "./settings.js";
import { $, $$, choose, el, fill, holdName } from "./ui.js";

const STATE_WORDS = { waiting: "waiting", countdown: "starting", playing: "playing", finished: "between games" };

export function initLobby(app) {
  // Back on an invite link's page after a while: what its room is now (a password set or taken off
  // since, a game begun or over), not what it was when the page first looked.
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && invited && !$("#screen-start").hidden) showInvite(invited);
  });
  const name = $("#name");
  name.value = localStorage.getItem("parlour.name") ?? "";
  name.addEventListener("change", () => localStorage.setItem("parlour.name", name.value.trim()));
  // At the limit the field stops taking letters without a word (a long name was cut short unseen).
  const limit = () => ($("#name-limit").hidden = !holdName(name));
  name.addEventListener("input", limit);
  limit();

  // The games come from the catalog: a tagline, a quick-play button and a choice each.
  const games = Object.values(GAMES);
  const titles = games.map((g) => g.title);
  $("#start-title").textContent = `Play ${titles.length > 1 ? `${titles.slice(0, -1).join(", ")} and ${titles.at(-1)}` : titles[0]} with friends`;
  fill($("#quick-games"), games.map((g) => el("button", { type: "button", dataset: { quick: g.name } }, g.title)));
  $("#game-pick").append(
    ...games.map((g, i) => el("label", { class: "choice" }, el("input", { type: "radio", name: "game", value: g.name, checked: i === 0 }), " ", g.title)),
  );

  const create = $("#create-form");
  // The last room's game and its listing come back: a group that keeps its rooms unlisted had a new one
  // listed in the lobby, the box checked again, unless someone remembered to uncheck it.
  let last = null;
  try {
    last = JSON.parse(localStorage.getItem(LAST_CREATED) ?? "null");
  } catch {
    // Not JSON (written by hand?): the form's defaults.
  }
  if (last) {
    const radio = $$('input[name="game"]', create).find((r) => r.value === last.game);
    if (radio) radio.checked = true;
    for (const key of ["public", "bots_take_over"]) if (typeof last[key] === "boolean") create.elements[key].checked = last[key];
  }
  const showSettings = () => {
    const game = create.elements.game.value;
    fill($("#game-settings"), capacityField(game), settingsFields(game, {}, true), catchDelayField(game));
    // The rules of the game picked, before a room is made (a newcomer found them only inside a room).
    const chosen = games.find((g) => g.name === game);
    $("#game-how summary").textContent = `How to play ${chosen?.title ?? game}`;
    $("#game-how p").textContent = chosen?.how_to_play ?? "";
  };
  for (const radio of $$('input[name="game"]', create)) radio.addEventListener("change", showSettings);
  showSettings();

  create.addEventListener("submit", (e) => {
    e.preventDefault();
    const game = create.elements.game.value;
    const fields = {
      game,
      settings: readSettings(create, game),
      capacity: Number(create.elements.capacity.value),
      public: create.elements.public.checked,
      bots_take_over: create.elements.bots_take_over.checked,
      bot_catch_delay: readCatchDelay(create),
    };
    if (create.elements.password.value) fields.password = create.elements.password.value;
    localStorage.setItem(LAST_CREATED, JSON.stringify({ game, public: fields.public, bots_take_over: fields.bots_take_over }));
    app.enter("create_room", fields);
  });

  const join = $("#join-form");
  const codeAndPassword = () => {
    const fields = { code: typedCode(join.elements.code.value) };
    if (join.elements.password.value) fields.password = join.elements.password.value;
    return fields;
  };
  join.addEventListener("submit", (e) => {
    e.preventDefault();
    app.enter("join", codeAndPassword());
  });
  // An invite link fills the code in and puts the cursor in the name: Enter there joins that room.
  name.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.isComposing && join.elements.code.value.trim()) {
      e.preventDefault();
      join.requestSubmit();
    }
  });
  $("#spectate-btn").addEventListener("click", () => {
    if (join.reportValidity()) app.enter("spectate", codeAndPassword());
  });

  renderRooms(new Map(), app);
  for (const button of $$("[data-quick]")) {
    button.addEventListener("click", () => app.enter("quick_play", { game: button.dataset.quick }));
  }
}

const LAST_CREATED = "parlour.lastCreated";

/** Fill the code box (e.g. from a /r/CODE link the visitor opened before naming themselves). */
export function presetCode(code) {
  $("#join-code").value = code;
}

let invited = null; // the room code an invite link's page tells of, while it does

/** An invite link opened before the visitor has a name: its room's Join, named, comes first (on a
 * phone it stood below the whole Create panel, whose big button was the first one offered). */
export async function showInvite(code) {
  invited = code;
  const form = $("#join-form");
  form.classList.add("invited");
  form.querySelector("h2").textContent = `Join room ${code}`;
  // A closed room's link is said to be one at once (it looked open until a name was typed and Join
  // pressed); a failed look leaves the invitation as it is.
  const reply = await fetch(`/api/invite/${encodeURIComponent(code)}`).catch(() => null);
  const still = () => form.querySelector("h2").textContent === `Join room ${code}`;
  if (reply?.status === 404 && still()) {
    clearInvite();
    form.querySelector("h2").after(el("p", { class: "alert", id: "invite-gone", role: "status" }, `No open room has the code “${code}”: a room that closed is gone.`));
  } else if (reply?.ok) {
    // Which game, and whose: one link looked like any other until the friend had joined. Another node
    // of a cluster knows the game, not the host (docs/protocol.md).
    const { game, host, password, playing } = await reply.json().catch(() => ({}));
    if (game && still()) {
      $("#invite-facts")?.remove();
      form.querySelector("h2").after(
        el(
          "p",
          { id: "invite-facts", dataset: { testid: "invite-facts" } },
          el("strong", {}, title(game)),
          host ? `, hosted by ${host}` : "",
          // Joining mid-game had made the visitor a spectator without a word first.
          playing ? el("span", { class: "muted" }, ". A game is on: you watch it, and may take a seat for the next.") : "",
        ),
      );
      // Whether to type a password is known (unknown on another node of a cluster: null): one was
      // asked for only after Join, and a room with none showed the box anyway.
      $("#join-password-note").textContent = password === true ? "(this room has one)" : "(if the room has one)";
      form.classList.toggle("no-password", password === false);
    }
  }
}

/** Joining was refused for want of a password (one set since an invite's page looked, maybe): the
 * Password box shown, said to be needed, and focused. */
export function passwordNeeded() {
  $("#join-form").classList.remove("no-password");
  $("#join-password-note").textContent = "(this room has one)";
  $("#join-password").focus();
}

/** Back to the plain start page (the visitor left the room the link led to). */
export function clearInvite() {
  invited = null;
  const form = $("#join-form");
  form.classList.remove("invited");
  form.querySelector("h2").textContent = "Join a game";
  $("#invite-gone")?.remove();
  $("#invite-facts")?.remove();
  $("#join-password-note").textContent = "(if the room has one)";
  form.classList.remove("no-password");
}

/** The code in the Join box as the server reads it: an invite link pasted whole gives its code, and
 * the spaces and hyphens of a code read out in halves ("97k7-cyw4") go (the server drops them too). */
function typedCode(value) {
  const linked = value.match(/\/r\/([A-Za-z0-9 -]+)\/?\s*$/);
  return (linked ? linked[1] : value).replace(/[\s-]+/g, "").toUpperCase();
}

export function renderRooms(rooms, app) {
  const list = $("#public-rooms");
  const sorted = [...rooms.values()].filter((r) => !app.removedFrom(r.code)).sort((a, b) => a.game.localeCompare(b.game) || b.players - a.players);
  if (!sorted.length) {
    fill(list, el("li", { class: "muted" }, "No public rooms yet — create one!"));
    return;
  }
  fill(
    list,
    sorted.map((room) => {
      const open = ["waiting", "countdown", "finished"].includes(room.state) && room.players < room.capacity;
      return el(
        "li",
        { class: "room-item", dataset: { code: room.code } },
        el(
          "span",
          { class: "room-info" },
          el("span", { class: "room-game" }, title(room.game)),
          el("code", {}, room.code),
          el("span", { class: "muted" }, `${room.players}/${room.capacity}${room.bots ? ` (${room.bots} bot${room.bots > 1 ? "s" : ""})` : ""} · ${STATE_WORDS[room.state] ?? room.state}`),
          room.host ? el("span", { class: "room-host" }, `host: ${room.host}`) : null,
          room.has_password ? el("span", { class: "badge", title: "Password required" }, "password") : null,
        ),
        el(
          "span",
          { class: "row" },
          open ? el("button", { onclick: () => joinListed(app, "join", room) }, "Join") : null,
          el("button", { onclick: () => joinListed(app, "spectate", room) }, "Watch"),
        ),
      );
    }),
  );
}

async function joinListed(app, kind, room, problem = null) {
  const fields = { code: room.code };
  let password = problem ? "" : $("#join-password").value;
  // The list marks the room "password": Join asks for it here (it was refused first, with "type it in
  // the Password box and join again"), and asks again, saying so, when it was wrong.
  const asking = room.has_password && kind === "join";
  if (!password && asking) {
    password = await askPassword(room, problem);
    if (password === null) return;
  }
  if (password) fields.password = password;
  const again = () => joinListed(app, kind, room, "That password is wrong — check it and try again.");
  app.enter(kind, fields, asking ? { wrongPassword: again } : {});
}

/** The password of listed `room`, or null when the visitor cancels. Enter in the box joins (the form's
 * first button, Cancel, would take it). */
async function askPassword(room, problem) {
  const join = () => $('#dialog-buttons button[value="join"]').click();
  const box = el("input", { type: "password", name: "password", maxlength: 64, required: true, autocomplete: "off", onkeydown: (e) => e.key === "Enter" && (e.preventDefault(), join()) });
  const body = el("div", {}, problem ? el("p", { class: "alert", role: "alert" }, problem) : null, el("p", {}, `${title(room.game)} room ${room.code}${room.host ? `, hosted by ${room.host},` : ""} has a password.`), el("label", {}, "Password ", box));
  const answer = await choose("Join with a password", body, [{ label: "Cancel", value: "cancel" }, { label: "Join", value: "join", class: "primary", validate: true }]);
  return answer === "join" ? box.value : null;
}
