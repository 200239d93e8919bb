// Parlour browser client: session, routing and the native protocol's messages.
// The server is the authority; this file keeps its latest snapshot and renders it.

import "./theme.js"; // first: the page takes its theme before anything waits
import { GAMES, TABLES, loadCatalog } from "./catalog.js";
import { closeLog, keepLogPinned, noteEntries, personal, resetLog, toggleLog } from "./gamelog.js";
import { keepProfile, profileField } from "./identity.js";
import { clearInvite, initLobby, passwordNeeded, presetCode, renderRooms, showInvite } from "./lobby.js";
import { Connection } from "./net.js";
import { appendChat, renderRoom, seatOnTurn, tableContext, updateTimers } from "./room.js";
import { describeChanges } from "./settings.js";
import { beep, isMuted, setMuted } from "./sound.js";
import { $, $$, answer, choose, clearToasts, closeDialog, closeTurnDialog, confirmDialog, el, fill, holdName, markOverflow, markOverflowY, morph, sentence, showScreen, toast, toastAll } from "./ui.js";

await loadCatalog(); // the games, their settings schemas and their tables, before anything is drawn

const store = {
  get token() {
    return localStorage.getItem("parlour.token");
  },
  set token(value) {
    if (value) localStorage.setItem("parlour.token", value);
    else localStorage.removeItem("parlour.token");
  },
};

const S = {
  session: null, // {name, session} once identified on this connection
  room: null, // the normalised room snapshot, kept current by events
  lobby: new Map(), // public rooms by code
  removedFrom: new Set(), // rooms whose host removed this person: listed, they offered only a refusal
  unreadChat: 0, // chat that arrived while the tab was hidden
  chatUnseen: 0, // chat that arrived while the chat was out of sight (a phone's is below the table)
  wantedCode: roomCodeFromPath(),
};

function roomCodeFromPath() {
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  return match ? match[1].toUpperCase() : null;
}

/** Deadlines arrive with `remaining` seconds; keep them on our own clock. */
const localDeadline = (timer) => (timer && timer.remaining != null ? Date.now() + timer.remaining * 1000 : null);
const withDeadline = (timer) => (timer ? { ...timer, localDeadline: localDeadline(timer) } : null);

/** A finished game's view has nobody on turn. A game the room ended (every player gone) keeps its
 * engine's turn, and its tables still marked that seat "to play" under the results. */
const settled = (play, state) => (play && state === "finished" && play.view?.turn != null ? { ...play, view: { ...play.view, turn: null } } : play);

function normalise(msg) {
  return {
    code: msg.code,
    kind: msg.game,
    settings: msg.settings ?? {},
    public: msg.public,
    has_password: msg.has_password,
    spectators_need_password: msg.spectators_need_password,
    capacity: msg.capacity,
    bots_take_over: msg.bots_take_over,
    bot_catch_delay: msg.bot_catch_delay,
    quick_play: msg.quick_play,
    state: msg.state,
    host: msg.host,
    members: msg.members,
    you: msg.you,
    countdown: withDeadline(msg.timers?.countdown),
    grace: Object.fromEntries(Object.entries(msg.timers?.grace ?? {}).map(([member, timer]) => [member, localDeadline(timer)])),
    play: settled(msg.table ? { ...msg.table, turn: withDeadline(msg.table.turn) } : null, msg.state),
    log: msg.table?.log ?? [],
    outcome: msg.outcome,
    scoreboard: msg.scoreboard ?? [],
    recent_games: msg.recent_games ?? [],
    wentAway: new Set(), // members this page saw lose their connection (only they are "back")
    toldAway: new Set(), // those of them whose loss it said (gone past AWAY_SAY_MS): their return is said too
  };
}

// --- Actions the screens call -------------------------------------------------

let acting = false; // a move is on its way (app.act)
const ACT_PATIENCE_MS = 3000;

/** When this player's turn clock last ran out; a move refused within TOO_LATE_MS of it was too late. */
let timedOutAt = 0;
const TOO_LATE_MS = 5000;

const app = {
  /** This browser's guest profile id (its stats page is /p/<id>), once identified. */
  profile: () => S.session?.profile ?? null,

  /** Whether this person was removed from room ``code`` (the public list leaves it out). */
  removedFrom: (code) => S.removedFrom.has(code),

  /** Fire a request; show its error as a toast. Resolves to the reply or null. */
  async send(type, fields = {}) {
    const { reply, error } = await app.attempt(type, fields);
    if (!error) return reply;
    // The engine names seats by number ("it is seat 0's turn"); the table already shows whose turn it is.
    // A move whose answer was lost with the connection may or may not have been played: the table says,
    // once it is back (it was lost without a word, and tapped again on a table that had moved on).
    const lostMove = error.code === "connection_lost" && type === "action";
    const tooLate = error.code === "not_your_turn" && type === "action" && Date.now() - timedOutAt < TOO_LATE_MS;
    // A table may word a refusal of its game's move from what it saw happen (Cheat: a call beaten by
    // another's, "there is no play to challenge").
    const table = type === "action" && S.room ? TABLES[S.room.kind] : null;
    const told = table?.refusal?.(error, fields.action, tableContext(S.room, app).name);
    let words = error.message ?? "Something went wrong";
    if (tooLate) words = "Too late: your time ran out, and the game moved for you.";
    else if (told) words = told;
    else if (error.code === "not_your_turn") words = "It's not your turn.";
    else if (lostMove) words = "The connection dropped before your move was answered: once it is back, check the table and play again if your move is not there.";
    answer(words);
    beep("bad");
    return null;
  },

  /** A request whose error the caller shows itself (in a dialog): `{ reply }` or `{ error }`. */
  async attempt(type, fields = {}) {
    try {
      return { reply: await conn.request(type, fields) };
    } catch (error) {
      return { error };
    }
  },

  /** A game move. While one is on its way the next is dropped: a double click sent the same move twice,
   * and the second, judged after the first, came back as "you do not hold that card". */
  async act(action) {
    if (acting) return null;
    acting = true;
    // Never for long: a move lost with its room's server (a cluster node that died) is never
    // answered, and the table must not stop taking clicks because of it.
    const release = setTimeout(() => (acting = false), ACT_PATIENCE_MS);
    try {
      return await app.send("action", { action });
    } finally {
      clearTimeout(release);
      acting = false;
    }
  },

  /** create_room / join / spectate / quick_play, identifying first with the name field. */
  /** Join or watch a room; `wrongPassword`, if given, is what a wrong password does instead of the
   * start page's Password box (the public list's dialog asks again). */
  async enter(type, fields, { wrongPassword = null } = {}) {
    S.wantedCode = null; // the visitor chose for themselves: an invite link no longer joins for them
    if (!(await identify())) return;
    try {
      await conn.request(type, fields);
    } catch (err) {
      if (err.code === "wrong_password" && wrongPassword) wrongPassword();
      else if (err.code === "wrong_password") {
        answer(fields.password ? "That password is wrong — check it and try again." : "This room has a password — type it in the Password box and join again.");
        presetCode(fields.code);
        passwordNeeded();
      } else if (err.code === "room_full" && type === "join") {
        if (await confirmDialog("This room is full", "All seats are taken. Watch the game instead?", "Watch", { kind: "primary" })) await app.send("spectate", fields);
      } else if (err.code === "invalid_code" || err.code === "room_not_found") {
        const code = String(fields.code ?? "").trim().toUpperCase();
        // A private room's code is longer than a public one's; a code that was right may be of a closed room.
        answer(err.code === "invalid_code" ? `“${code}” is not a room code — check it.` : `No open room has the code “${code}” — check it; a room that closed is gone.`);
        $("#join-code").focus();
      } else if (err.code === "banned") {
        answer(err.message);
        beep("bad");
        unlist(fields.code); // back after a reload: the list no longer offers it
      } else if (err.code === "game_in_progress" && type === "join") {
        // Said once in the room: entering it clears the start page's toasts.
        if (await app.send("spectate", fields)) toast("A game is on: you are watching, and can take a seat when it ends.", "info");
      } else if (err.code === "already_in_room") {
        await app.send("leave");
        await app.send(type, fields);
      } else {
        answer(err.message);
        beep("bad");
      }
    }
  },

  /** Copy the invite link (the server's, which knows the public or LAN address). */
  async copyLink() {
    const link = inviteUrl();
    try {
      await navigator.clipboard.writeText(link);
      toast("Link copied — send it to your friends", "good");
    } catch {
      toast(`Share this link: ${link}`, "info", 8000);
    }
  },

  /** The phone's share sheet, where there is one. */
  async share() {
    try {
      await navigator.share({ title: "Parlour", text: `Join my game — room ${S.room.code}`, url: inviteUrl() });
    } catch {
      // Dismissed, or not allowed here: nothing to say.
    }
  },

  /** Handing the host over cannot be taken back by the one who gave it: asked first, as Kick is. */
  async makeHost(member) {
    if (await confirmDialog(`Make ${member.name} the host?`, "They will start games, change the settings and can kick players. Only they can hand it back.", "Make host")) {
      app.send("transfer_host", { member: member.id });
    }
  },

  /** Your name in this room, and from now on (a typo fixed without leaving and joining again). A name
   * the room refuses (taken, too long) is said in the dialog, which stays open with what was typed. */
  async rename(member) {
    let typed = member.name;
    let refusal = null;
    for (;;) {
      // Typing past the limit says so (the field had stopped without a word), and a refusal about the
      // name that was sent goes once the name changes.
      const edited = () => {
        limit.hidden = !holdName(field);
        field.setCustomValidity(field.value.trim() ? "" : "A name needs a letter, a digit or an emoji.");
        if (field.value.trim() !== typed) error?.remove();
      };
      const field = el("input", { name: "new-name", maxlength: "128", required: true, value: typed, autocomplete: "nickname", oninput: edited, "aria-describedby": "rename-limit rename-error", "aria-invalid": refusal ? "true" : null });
      const limit = el("p", { id: "rename-limit", class: "setting-help", hidden: true }, "A name is 16 characters at most.");
      const error = refusal ? el("p", { id: "rename-error", class: "chat-error", role: "alert" }, refusal) : null;
      // Enter in the field renames (the form's first button, Cancel, would take it).
      field.addEventListener("keydown", (e) => {
        if (e.key !== "Enter") return;
        e.preventDefault();
        if (field.reportValidity()) $("#dialog").close("yes");
      });
      const body = el("div", {}, el("label", {}, "Your name ", field), limit, error);
      const asked = choose("Change your name", body, [
        { label: "Cancel", value: "no" },
        { label: "Rename", value: "yes", class: "primary", validate: true },
      ]);
      field.select(); // the name to type over (the caret had stood before it, typing went in front)
      const chosen = await asked;
      typed = field.value.trim();
      if (chosen !== "yes" || typed === member.name) return;
      const { error: refused } = await app.attempt("rename", { name: typed });
      if (!refused) break;
      refusal = sentence(refused.message ?? "that name cannot be used here");
      beep("bad");
    }
    // The session is renamed too: the start page's name is it (a name that differs starts a new one).
    if (S.session) S.session.name = typed;
    localStorage.setItem("parlour.name", typed);
    $("#name").value = typed;
  },

  async kick(member) {
    // Mid-game the one kicked leaves the game as a leaver does, under the game's rule: a kick that ended
    // a Cheat game of three had warned of nothing.
    const seated = S.room.state === "playing" && (S.room.play?.seats ?? []).some((s) => s.member === member.id);
    const rule = GAMES[S.room.kind]?.leave_rule;
    const game = seated && rule ? ` They leave the game being played. ${rule}` : "";
    const why = (member.bot ? "Its seat is freed for someone else." : "They will not be able to rejoin this room.") + game;
    if (await confirmDialog(`${member.bot ? "Remove" : "Kick"} ${member.name}?`, why, member.bot ? "Remove" : "Kick")) {
      app.send("kick", { member: member.id });
    }
  },
};

/** Make sure this connection has a session under the name in the name field. */
async function identify() {
  const input = $("#name");
  const name = input.value.trim();
  if (!name) {
    answer("Choose a display name first");
    input.focus();
    return false;
  }
  await sessionReady;
  if (S.session?.name === name) return true;
  localStorage.setItem("parlour.name", name);
  if (S.session) {
    // A new name is a new guest session: start over on a fresh connection.
    store.token = null;
    await conn.reopen();
    return Boolean(S.session);
  }
  return identifyAs(name);
}

async function identifyAs(name) {
  try {
    onWelcome(await conn.request("identify", { name, ...profileField() }));
    return true;
  } catch (err) {
    answer(err.message);
    $("#name").focus();
    return false;
  }
}

function onWelcome(msg) {
  store.token = msg.token;
  keepProfile(msg.profile);
  if (msg.profile) Object.assign($("#my-stats"), { href: `/p/${msg.profile.id}`, hidden: false });
  S.session = { name: msg.name, session: msg.session, profile: msg.profile?.id ?? null };
  $("#name").value = msg.name;
  conn.request("lobby_subscribe").catch(() => {});
}

/** A button pressed before the first connection has opened (a slow network, a fresh tab) waits for
 * it, a few seconds at most, instead of failing with "not connected". */
let firstOpen;
let sessionReady = new Promise((resolve) => {
  firstOpen = resolve;
  setTimeout(resolve, 5000);
});

async function onOpen() {
  S.session = null;
  sessionReady = startSession();
  await sessionReady;
  firstOpen();
  if (S.room?.stale) {
    // The resumed session is no longer in that room: it closed, or could not be brought back after a
    // restart. Said, not just the start page shown (a table that took no clicks was shown before).
    const code = S.room.code;
    leftRoom();
    toast(`Room ${code} is no longer open: it closed while you were away.`, "info", 8000);
  }
  const wanted = S.wantedCode;
  if (!wanted || wanted === S.room?.code) {
    S.wantedCode = null;
  } else if (!S.room) {
    openLink(wanted);
  } else if (await confirmDialog(`Go to room ${wanted}?`, `You are still in room ${S.room.code}. Leave it and open ${wanted}?`, "Leave and go")) {
    await app.send("leave");
    leftRoom();
    openLink(wanted);
  } else {
    S.wantedCode = null;
  }
}

/** Resume the stored session (its room snapshot follows), else identify with the remembered name. */
async function startSession() {
  if (store.token) {
    try {
      S.resuming = true;
      onWelcome(await conn.request("resume", { token: store.token }));
      await conn.request("ping"); // replies are ordered: any room snapshot has arrived by now
    } catch (err) {
      if (err.code === "invalid_token") store.token = null;
    } finally {
      S.resuming = false;
    }
  }
  const name = localStorage.getItem("parlour.name");
  if (!S.session && name) await identifyAs(name);
}

async function openLink(code) {
  S.wantedCode = null;
  presetCode(code);
  if (!S.session) {
    showInvite(code); // says it where the visitor looks (a toast here covered the name's label)
    $("#name").focus();
    return;
  }
  app.enter("join", { code });
}

/** Before a name is chosen there is no session to subscribe with: poll the HTTP list. */
async function pollLobby() {
  try {
    const reply = await fetch("/api/rooms");
    const { rooms } = await reply.json();
    S.lobby = new Map(rooms.map((r) => [r.code, r]));
    renderRooms(S.lobby, app);
  } catch {
    // The live list will catch up once we are connected and identified.
  }
}

// --- Server messages ------------------------------------------------------------

const handlers = {
  room(msg) {
    const resumed = S.room?.code === msg.code || Boolean(S.resuming);
    const results = S.room?.code === msg.code ? S.room.results : null;
    const invite = S.room?.code === msg.code ? S.room.invite : null;
    const newSettings = S.room?.code === msg.code ? S.room.newSettings : null;
    const entering = S.room?.code !== msg.code;
    if (entering) clearToasts(); // stale notices from the start page stay there
    S.room = normalise(msg);
    S.room.invite = invite;
    S.room.newSettings = newSettings;
    if (!invite) loadInvite(S.room.code);
    // The results stay on screen until this player leaves them, whoever asked for a rematch; someone
    // who only now joins is there for the next game, not for the results of one they did not see (but
    // one whose seat in it was given up while away did).
    const over = msg.state === "finished" && msg.outcome && S.room.play && (resumed || msg.seat_lost);
    S.room.results = over ? resultsOf(S.room) : results;
    const missed = resetLog(S.room.log, resumed && msg.state === "playing", S.room.code);
    for (const table of Object.values(TABLES)) table.reset();
    // What a table marks from the latest events (Dots' last turn) comes back from the log.
    TABLES[S.room.kind]?.resume?.(S.room.log.map((entry) => entry.event).filter(Boolean));
    history.replaceState(null, "", `/r/${S.room.code}`);
    document.title = `Parlour — ${S.room.code}`;
    showScreen("screen-room");
    render();
    // A room entered from low on the start page (Watch beside a listed room) opened scrolled down, its
    // top bar and code out of sight.
    if (entering) scrollTo(0, 0);
    // Once the room is on screen: a list still hidden has no height to scroll, so the chat used to
    // open at its oldest line after a reload.
    fill($("#chat-log"));
    for (const message of msg.chat ?? []) appendChat(message, S.room);
    if (entering) S.chatUnseen = 0;
    showChatJump();
    if (msg.taken_back) toast("A bot kept your seat while you were away — it's yours again", "info", 6000);
    else if (missed.length) toast(meanwhile(missed, S.room), "info", 6000);
    const me = S.room.members.find((m) => m.id === S.room.you.member);
    if (entering && !resumed && S.session && me && me.name !== S.session.name) {
      toast(`Someone here is already called ${S.session.name}: you're ${me.name} in this room`, "info", 6000);
    }
    if (msg.played_by_bot) toast("A bot finished the game for you while you were away", "info", 6000);
    else if (msg.seat_lost) {
      const words = msg.state === "finished" ? "and the game ended meanwhile" : "you're watching until this game ends";
      toast(`Your seat was given up while you were away — ${words}`, "info", 6000);
    }
  },
  member_joined({ member }) {
    upsertMember(member);
    toast(`${member.name} ${member.role === "player" ? "joined" : "is watching"}`);
  },
  member_updated({ member, grace }) {
    const before = S.room.members.find((m) => m.id === member.id);
    if (grace) S.room.grace[member.id] = localDeadline(grace);
    if (member.connected || member.replaced) delete S.room.grace[member.id];
    // "Back" only after a loss this page saw: after a server restart everyone reconnects, and each page
    // said "X is back" of players who had never gone.
    // Only a player's: a spectator's reload told every table "Di lost connection", "Di is back". A
    // move's news may take its place (the seat's chip says "offline" all along): it held the next
    // move's toast back.
    // Said once they have been gone a moment: a reload's half second away told the whole table "Ben lost
    // connection", and its "is back" could be lost behind the next move.
    const told = member.role === "player";
    if (before && before.connected && !member.connected && !member.bot) {
      S.room.wentAway.add(member.id);
      const room = S.room;
      if (told) {
        setTimeout(() => {
          if (S.room !== room || !room.wentAway.has(member.id)) return;
          room.toldAway.add(member.id);
          toast(`${member.name} lost connection`, "info", 3000, true);
        }, AWAY_SAY_MS);
      }
    } else if (before && !before.connected && member.connected && S.room.wentAway.delete(member.id) && S.room.toldAway.delete(member.id) && told) {
      // After a bot stood in (said in a toast that stays), the return stays too: the bot's and the
      // others' moves went on, and their news took its place (CI saw "Cy drew 2" and no "Cy is back").
      toast(`${member.name} is back`, "info", 3000, !before.replaced);
    }
    if (before && !before.replaced && member.replaced) toast(`A bot plays for ${member.name} until they are back`);
    if (before && before.name !== member.name) {
      // A rename: their seat at the table (and in the results) takes it, as the server's does.
      for (const seats of [S.room.play?.seats, S.room.results?.play?.seats]) {
        for (const seat of seats ?? []) if (seat.member === member.id) seat.name = member.name;
      }
      if (member.id !== S.room.you.member) toast(`${before.name} is now ${member.name}`);
    }
    upsertMember(member);
  },
  member_left({ member, reason }) {
    const gone = S.room.members.find((m) => m.id === member);
    S.room.members = S.room.members.filter((m) => m.id !== member);
    delete S.room.grace[member];
    // Mark their seat as the server does (a snapshot's seats say it too), so the table says "kicked".
    const seat = S.room.state === "playing" ? S.room.play?.seats.find((s) => s.member === member) : null;
    if (seat) Object.assign(seat, { left: true }, reason === "kicked" ? { kicked: true } : {});
    if (S.room.rematch?.member === member) S.room.rematch = null; // an offer from someone gone stands for nothing
    const how = reason === "kicked" ? (gone?.bot ? "was removed" : "was kicked") : reason === "timeout" ? "timed out" : "left";
    const said = gone && `${gone.name} ${how}`;
    // A host who leaves is followed by who hosts now (host_changed): said in one toast, not two in turn.
    if (said && member === S.room.host) S.room.hostLeft = said;
    else if (said) toast(said);
    render();
  },
  host_changed({ host }) {
    S.room.host = host;
    for (const m of S.room.members) m.host = m.id === host;
    const name = S.room.members.find((m) => m.id === host)?.name;
    const now = host === S.room.you.member ? "you are the host now" : name ? `${name} is the host now` : null;
    const left = S.room.hostLeft;
    S.room.hostLeft = null;
    const text = left && now ? `${left} — ${now}` : (left ?? (now && sentence(now)));
    if (text) toast(text, "info");
    render();
  },
  settings_changed(msg) {
    const changes = describeChanges(S.room.kind, S.room, msg);
    // Changed since the last game: said with a rematch offer to those still on the results.
    if (S.room.results) S.room.newSettings = [...new Set([...(S.room.newSettings ?? []), ...changes])];
    Object.assign(S.room, { settings: msg.settings, public: msg.public, capacity: msg.capacity, has_password: msg.has_password, bots_take_over: msg.bots_take_over, bot_catch_delay: msg.bot_catch_delay });
    // The server unreadies every ready player but the host who made the change: say why the button changed.
    const me = S.room.members.find((m) => m.id === S.room.you.member);
    const what = changes.length ? `: ${changes.join(", ")}` : "";
    toast(me?.ready && S.room.host !== me.id ? `Room settings changed${what} — ready up again` : `Room settings changed${what}`);
    render();
  },
  countdown(msg) {
    S.room.countdown = msg.kind ? withDeadline(msg) : null;
    if (!msg.kind) toast("Countdown cancelled");
    render();
  },
  chat({ message }) {
    appendChat(message, S.room);
    if (message.member !== S.room.you.member) {
      beep("chat");
      const unseen = document.hidden || !inSight($("#chat-log"));
      if (document.hidden) S.unreadChat += 1;
      else if (unseen) toast(`${message.name}: ${clip(message.text, 90)}`, "chat", 4000, true);
      if (unseen) S.chatUnseen += 1;
      updateTitle();
      showChatJump();
    }
  },
  game_started(msg) {
    for (const table of Object.values(TABLES)) table.reset();
    S.room.newSettings = null;
    closeDialog();
    S.room.state = "playing";
    S.room.countdown = null;
    S.room.outcome = null;
    S.room.play = { seq: msg.seq, seats: msg.seats, view: msg.view, turn: withDeadline(msg.turn) };
    S.room.log = [...(msg.log ?? [])];
    S.room.results = null;
    S.room.rematch = null;
    localStorage.setItem("parlour.lastGame", S.room.kind); // the leaderboards open on it
    resetLog([], false, S.room.code);
    toast("The game has started!", "good");
    beep("good");
    gameEvents(msg.events);
    const seat = tableContext(S.room, app).seat;
    announce(msg.log ?? [], seat !== null && seatOnTurn(S.room.play) === seat); // a first turn is said too
    render();
  },
  game(msg) {
    const play = S.room.play;
    if (!play || msg.seq !== play.seq + 1) {
      conn.reopen(); // missed something: a fresh connection resumes with a full snapshot
      return;
    }
    const seat = tableContext(S.room, app).seat;
    const wasMyTurn = seat !== null && seatOnTurn(play) === seat;
    const news = msg.log ?? [];
    Object.assign(play, { seq: msg.seq, view: msg.view, turn: withDeadline(msg.turn) });
    S.room.log.push(...(msg.log ?? []));
    if (S.room.log.length > 200) S.room.log.splice(0, S.room.log.length - 200);
    noteEntries(msg.log ?? []);
    gameEvents(msg.events);
    const myTurn = !wasMyTurn && seat !== null && seatOnTurn(play) === seat;
    if (myTurn) yourTurn(play.turn);
    else if (wasMyTurn && seatOnTurn(play) !== seat) closeTurnDialog();
    announce(news, myTurn);
    render();
  },
  game_over(msg) {
    clearToasts(); // the game-over panel says it all
    closeTurnDialog();
    S.room.state = "finished";
    S.room.outcome = msg.outcome;
    S.room.scoreboard = msg.scoreboard ?? S.room.scoreboard;
    const winners = msg.outcome.winners.map((w) => msg.seats.find((s) => s.seat === w)?.name);
    const game = { id: msg.game_id, game: S.room.kind, winners, reason: msg.outcome.reason, ended_at: Date.now() / 1000 };
    // A private room's game opens only for its players: listed only to them, as the server lists it.
    const seated = msg.seats.some((s) => s.member === S.room.you.member);
    if (seated || (S.room.public && !S.room.has_password)) S.room.recent_games = [...S.room.recent_games, game].slice(-10);
    if (S.room.play) S.room.play = settled({ ...S.room.play, seats: msg.seats }, "finished");
    if (S.room.play) S.room.results = resultsOf(S.room);
    const won = msg.outcome.winners.includes(tableContext(S.room, app).seat);
    beep(won ? "good" : "play");
    render();
  },
  rematch_offer({ member, name }) {
    S.room.rematch = { member, name };
    if (member === S.room.you.member) S.room.results = null; // you asked: on to the waiting room
    else toast(`${name} asks for a rematch`, "info", 4000);
    render();
  },
  state_changed({ state, reason }) {
    S.room.state = state;
    if (reason === "reset") {
      // The game's last moves, still queued as notices, belong to a game that is gone.
      clearToasts();
      const host = S.room.members.find((m) => m.id === S.room.host);
      toast(host?.id === S.room.you.member ? "You ended the game" : `${host?.name ?? "The host"} ended the game`, "info", 5000);
    }
    render();
  },
  kicked() {
    // The room's notices still queued are no longer this person's: they had read "Bot 6 was kicked".
    clearToasts();
    toast("The host removed you from the room", "bad");
    const code = S.room.code;
    leftRoom();
    unlist(code);
    presetCode(""); // its code, left in the Join box, led only to "You were removed from this room"
  },
  room_closed({ reason }) {
    clearToasts();
    const closer = reason === "terminated" && S.room.host === S.room.you.member;
    toast(closer ? "You closed the room" : reason === "terminated" ? "The host closed the room" : "The room closed", closer ? "info" : "bad");
    leftRoom();
    presetCode(""); // a closed room's code leads nowhere
  },
  lobby({ rooms }) {
    S.lobby = new Map(rooms.map((r) => [r.code, r]));
    renderRooms(S.lobby, app);
  },
  lobby_room({ room }) {
    S.lobby.set(room.code, room);
    renderRooms(S.lobby, app);
  },
  lobby_room_removed({ code }) {
    S.lobby.delete(code);
    renderRooms(S.lobby, app);
  },
  async replaced() {
    conn.stop();
    // The other tab plays now: this one is covered until the player takes the game back here (its
    // buttons stayed live, and a press said "Not connected — retrying…").
    const title = "Open in another tab";
    const why = "You opened this game in another tab, and it plays there now.";
    while ((await choose(title, why, [{ label: "Play here instead", value: "here", class: "primary" }])) !== "here");
    location.reload();
  },
};

/** What happened while this page was away (back within the grace, nothing else said it: a turn timed
 * out, a card placed for you), in a line: your own entries first, the rest counted; the log marks them. */
function meanwhile(missed, room) {
  const ctx = tableContext(room, app);
  const texts = missed.map((entry) => personal(entry, ctx.seat, ctx.seat === null ? null : ctx.name(ctx.seat)));
  const yours = texts.filter((text) => /^You |\byou\b|\byour\b/.test(text));
  const said = (yours.length ? yours : texts).slice(-2);
  const more = missed.length - said.length;
  return `While you were away: ${said.join("; ")}${more ? ` (and ${more} more in the log)` : ""}`;
}

/** What the results screen shows: kept apart from the room, which moves on to the next game. */
function resultsOf(room) {
  return { outcome: room.outcome, play: room.play, log: room.log, scoreboard: room.scoreboard, game_id: room.recent_games.at(-1)?.id };
}

const inviteUrl = () => S.room.invite?.url ?? `${location.origin}/r/${S.room.code}`;

/** The invite link, QR code and reachability of a room, as the server sees them. */
async function loadInvite(code) {
  try {
    const reply = await fetch(`/api/invite/${code}`);
    if (!reply.ok) return;
    const invite = await reply.json();
    if (S.room?.code === code) {
      S.room.invite = invite;
      render();
    }
  } catch {
    // Offline: the link falls back to this page's address.
  }
}

function upsertMember(member) {
  const i = S.room.members.findIndex((m) => m.id === member.id);
  if (i >= 0) S.room.members[i] = member;
  else S.room.members.push(member);
  if (member.id === S.room.you.member) {
    // Seated from the results or mid-game, only the button's words had changed.
    if (S.room.you.role === "spectator" && member.role === "player" && (S.room.results || S.room.state === "playing")) toast("You have a seat for the next game", "good");
    S.room.you = { member: member.id, role: member.role, seat: member.seat };
  }
  render();
}

function gameEvents(events) {
  const table = TABLES[S.room.kind];
  const ctx = tableContext(S.room, app);
  const me = ctx.seat === null ? null : ctx.name(ctx.seat);
  const notes = [];
  for (const event of events ?? []) {
    const note = table.onEvent(event, ctx.name, ctx.seat);
    if (!note) continue;
    // Your clock ran out (the table module knows its game's event): a move of yours still on its way is
    // refused as "not your turn", which is said as too late (app.send).
    if (note.outOfTime && event.seat === ctx.seat && ctx.seat !== null) timedOutAt = Date.now();
    if (note.sound) beep(note.sound);
    // In the second person where it is about you, as the log says it ("You called Cheat! … you pick up 3").
    if (!note.quiet) notes.push({ ...note, text: personal({ text: note.text, event }, ctx.seat, me) });
  }
  // One toast for the message. A move's makes way for the next move's; one that changed more than a
  // move (a round won, hands swapped, a call) is kept until read.
  toastAll(notes);
}

/** What the stage shows: the waiting room, the table or the results. */
let shownStage = null;

function render() {
  if (!S.room) return;
  renderRoom(S.room, app);
  updateTitle();
  keepFocus();
  // A new screen on the stage is shown from its top: the waiting room's Start or Ready had left a short
  // screen scrolled past the new table (a landscape phone showed the hand, the pile off-screen above),
  // and a Rematch pressed low on a phone's results opened the waiting room halfway down. Not while
  // typing a chat line.
  const stage = S.room.state === "playing" && S.room.play ? "table" : S.room.results ? "results" : "waiting";
  if (stage === shownStage) return;
  shownStage = stage;
  if ($("#stage").getBoundingClientRect().top < 0 && document.activeElement?.id !== "chat-input") {
    $("#stage").scrollIntoView({ block: "start" });
  }
}

/** Turn alerts: a sound, a buzz on phones that have one, and the tab title; a toast too for a player
 * scrolled away from their hand (down at the chat on a phone). */
function yourTurn(turn) {
  beep("turn");
  // The clock ran out on this player's last two turns: their turns are short until they move, and told why.
  if (turn?.hurried) toast(`Your clock ran out twice in a row: your turns last ${turn.hurried} s until you move.`, "turn", 5000, true);
  closeLog(); // a phone's log drawer lay over the hand while the turn's clock ran
  if (document.hidden) navigator.vibrate?.(150);
  else if (!inSight($('#stage [data-testid="hand"]') ?? $("#stage"))) toast("Your turn", "turn", 3000, true);
}

/** A phone's Chat button in the room's heading, with what arrived unseen: the chat is below the table,
 * and a toast for each line was all that said one came (gone in 4 s). */
function showChatJump() {
  const count = S.chatUnseen > 99 ? "99+" : String(S.chatUnseen);
  morph($("#chat-jump"), "Chat", S.chatUnseen ? el("span", { class: "unread", "aria-label": `${count} new` }, count) : null);
}

/** Seen once the chat comes into sight, however it got there (the button, or scrolling down). */
new IntersectionObserver(
  (entries) => {
    if (S.chatUnseen && entries.some((e) => e.isIntersecting) && !document.hidden) {
      S.chatUnseen = 0;
      showChatJump();
    }
  },
  { threshold: 0.5 },
).observe($("#chat-log"));

$("#chat-jump").addEventListener("click", () => {
  $("#chat-input").scrollIntoView({ block: "end", behavior: matchMedia("(prefers-reduced-motion: reduce)").matches ? "auto" : "smooth" });
  $("#chat-input").focus({ preventScroll: true });
});

/** Whether most of `element` (half of it, or of the screen if it is taller) is on screen: the chat is
 * beside the table on a laptop, below it on a phone, out of sight mid-game. */
function inSight(element) {
  const box = element.getBoundingClientRect();
  const shown = Math.min(box.bottom, window.innerHeight) - Math.max(box.top, 0);
  return shown >= Math.min(box.height, window.innerHeight) / 2;
}

function isMyTurn() {
  const seat = S.room ? tableContext(S.room, app).seat : null;
  return S.room?.state === "playing" && seat !== null && seatOnTurn(S.room.play) === seat;
}

function clip(text, length) {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** "Your turn" and the count of unread chat in the tab title, for a player in another tab. */
function updateTitle() {
  if (!S.room) return;
  const unread = S.unreadChat ? `(${S.unreadChat}) ` : "";
  document.title = `${unread}${isMyTurn() ? "Your turn — " : ""}Parlour — ${S.room.code}`;
}

/** Screen readers hear the table's news (the game log's words) and their turn. */
function announce(entries, myTurn) {
  const ctx = tableContext(S.room, app);
  const words = entries.map((e) => personal(e, ctx.seat, ctx.seat === null ? null : ctx.name(ctx.seat)));
  if (myTurn) words.push("Your turn.");
  if (words.length) fill($("#announce"), words.slice(-4).join(". "));
}

/** Whether the person has pressed a key or touched the page yet: a page just opened leaves focus where
 * the browser put it (moved for them, it drew a focus ring round the hand at every reload). */
let touched = false;
for (const kind of ["keydown", "pointerdown"]) addEventListener(kind, () => (touched = true), { capture: true, once: true });

/** The room's state at the last render: a game that starts or ends changes the whole stage. */
let shownState = null;
/** The prompt the table showed this player at the last render (``data-prompt``, None when none): one
 * that appears takes the focus once. */
let shownPrompt = null;

/** How long a player is gone before the table is told (a page reload takes well under it). */
const AWAY_SAY_MS = 2000;

/** The element that last took the focus: a render that replaced it (the table's alert above the hand
 * came or went, and every element after it was new) left the focus on <body>. */
let lastFocused = null;
addEventListener("focusin", (event) => (lastFocused = event.target), { capture: true });

/** Where in the hand the focus is: the hand, a card, or (a render replaced them) the hand or the card
 * still held that had it; null elsewhere, and for a card since played. */
function inHand(active) {
  const hand = $('#stage [data-testid="hand"]');
  if (!hand) return null;
  if (hand.contains(active)) return active;
  if (active !== document.body || !lastFocused || lastFocused.isConnected) return null;
  if (lastFocused.matches('[data-testid="hand"]')) return hand;
  const card = lastFocused.closest('[data-testid="hand"] [data-id]') && lastFocused.dataset.id;
  return card ? hand.querySelector(`[data-id="${CSS.escape(card)}"]`) : null;
}

/** The keyed control (`data-key`, ui.js) that had the focus, drawn again after a render replaced it
 * and still enabled; null if it is gone or was not keyed. */
function redrawn(active) {
  const key = active === document.body && lastFocused && !lastFocused.isConnected ? lastFocused.dataset?.key : null;
  return key ? $(`#screen-room [data-key="${CSS.escape(key)}"]:not([disabled])`) : null;
}

/** After an action the control pressed may be gone (a played card, a hidden screen) or disabled (Place,
 * a Connect Four column, once the turn has passed; the browser would blur it): focus never falls back
 * to <body>, it goes to the next sensible control — never one that acts on a second Enter meant for
 * the control that was there (I'm ready, then a card played; Add bot, then I'm ready). */
function keepFocus() {
  const active = document.activeElement;
  const state = S.room?.state;
  const turned = shownState !== null && state !== shownState && (state === "playing" || shownState === "playing");
  shownState = state;
  const prompt = $("#stage [data-prompt]");
  const asked = prompt && prompt.dataset.prompt !== shownPrompt;
  shownPrompt = prompt?.dataset.prompt ?? null;
  if ($("#dialog").open || !touched) return;
  // A decision only this player can take came up (UNO: challenge a Wild Draw Four, or accept it): the
  // focus goes to the question itself (read out, and the next Tab reaches the answers under it), never
  // to an answer a second Enter meant for a card would give. Never taken from elsewhere (the chat line).
  if (asked && (active === document.body || $("#stage").contains(active))) {
    prompt.focus({ preventScroll: true });
    return;
  }
  // A game began or ended under focus on the stage: focus goes to the stage itself (the next Tab goes
  // into the new table) or to the results' first button, not to a card that Enter would play.
  if (turned && (active === document.body || $("#stage").contains(active))) {
    ((state === "playing" ? null : $("#stage .game-over .primary")) ?? $("#stage")).focus({ preventScroll: true });
    return;
  }
  // A turn with nothing in the hand to play starts where the table says (UNO: Draw), from the hand
  // only: the hand itself (focused once no card played) or a card the others' moves left unplayable.
  // Not from the stage (an Enter meant for "I'm ready" as the game began would draw), nor from a card
  // just played (a second Enter meant for it would).
  const instead = $("#stage [data-from-hand]");
  const held = inHand(active);
  if (instead && held && (held.matches('[data-testid="hand"]') || held.disabled)) {
    instead.focus({ preventScroll: true });
    return;
  }
  // The same control drawn anew (Add easy bot, when the line above it went with the seat it filled):
  // the focus stays on it, so a second Enter does again what the first did, as on a button that stayed.
  const same = redrawn(active);
  if (same) {
    same.focus({ preventScroll: true });
    return;
  }
  // A table may name where a turn starts when its last move left focus on the table (Connect Four:
  // the column played); never taken from elsewhere (the chat line).
  const again = $("#stage [data-refocus]");
  if (again && (active === document.body || active?.id === "stage")) {
    again.focus({ preventScroll: true });
    return;
  }
  if (active && active !== document.body && active.isConnected && active.offsetParent !== null && !active.disabled) return;
  // Your hand first (a card, else the hand itself, focusable while no card plays: after your play, the
  // focus went to the whole table, which shows no ring of its own), the results' Rematch; last, the
  // stage itself (tabindex -1): the next Tab goes on from there, not from the top of the page.
  const hand = '#stage [data-testid="hand"]';
  const next = $(`${hand} button:not([disabled])`) ?? $(`${hand}[tabindex="0"]`) ?? $("#stage .game-over .primary") ?? $("#stage");
  next?.focus({ preventScroll: true });
}

/** The public list stops offering a room this person was removed from (its Join and Watch were
 * refused each time with "you were removed from this room"). */
function unlist(code) {
  S.removedFrom.add(String(code ?? "").toUpperCase());
  renderRooms(S.lobby, app);
}

function leftRoom() {
  S.room = null;
  clearInvite();
  closeDialog();
  history.replaceState(null, "", "/");
  document.title = "Parlour";
  showScreen("screen-start");
}

// --- Wiring ---------------------------------------------------------------------

/** Messages that make sense outside a room; the rest are about the room we are in. */
const ROOMLESS = new Set(["room", "lobby", "lobby_room", "lobby_room_removed", "replaced"]);

const conn = new Connection({
  onOpen,
  onMessage(msg) {
    if (msg.type === "error" && msg.id === undefined) toast(msg.message, "bad");
    const handler = handlers[msg.type];
    if (handler && (S.room || ROOMLESS.has(msg.type))) handler(msg);
  },
  onStatus(status) {
    // What follows the state's word gives way on a phone (styles.css): it wrapped, and squeezed the
    // theme and sound buttons onto two lines each.
    const [word, more] = {
      online: ["online"],
      connecting: ["connecting…"],
      offline: ["offline", " — reconnecting…"],
      stopped: ["elsewhere", " (in another tab)"], // the dialog over the page says the rest
    }[status];
    fill($("#conn"), word, more ? el("span", { class: "conn-more" }, more) : null);
    $("#conn").dataset.status = status;
    // The table takes no move while none can be sent (styles.css): it looked playable, and a click
    // was lost behind a "retrying" that meant the connection.
    document.body.classList.toggle("disconnected", status === "offline" || status === "connecting");
    if (status !== "online" && S.room) S.room.stale = true;
  },
});

initLobby(app);
keepLogPinned();
if (S.wantedCode) presetCode(S.wantedCode); // Join and Watch work before the connection is up
else if (location.pathname.startsWith("/r/")) {
  // A link cut short or mangled: said, not just the start page shown.
  let said = location.pathname.slice(3).replace(/\/$/, "");
  try {
    said = decodeURIComponent(said);
  } catch {
    // shown as it came
  }
  answer(`“${said}” is not a room code: check the link.`);
  history.replaceState(null, "", "/");
}
// Typing a name before the connection is up means the visitor presses Join or Watch themselves:
// the invite link must not seat them on its own when the connection opens a moment later.
$("#name").addEventListener("input", () => (S.wantedCode = null), { once: true });

// A refused line (too many too fast) goes back into the box to send again, and why is said under it
// at once: as a toast it waited behind the table's and the line was lost. The reason goes once the
// limit has refilled (a line a second): it had stayed up for the rest of the game.
const CHAT_WAIT_MS = 5000;
let chatErrorTimer = null;
$("#chat-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = $("#chat-input");
  const error = $("#chat-error");
  const text = input.value.trim();
  if (!text) return;
  input.value = "";
  try {
    await conn.request("chat", { text });
    error.hidden = true;
  } catch (err) {
    if (!input.value) input.value = text;
    error.textContent = err.code === "chat_rate_limited" ? "Too many messages at once — wait a few seconds, then send it again." : (err.message ?? "Not sent.");
    error.hidden = false;
    clearTimeout(chatErrorTimer);
    chatErrorTimer = setTimeout(() => (error.hidden = true), CHAT_WAIT_MS);
  }
});

$("#copy-link").addEventListener("click", () => app.copyLink());
// A docked hand scrolled, or the screen turned: which of its edges have cards beyond them.
document.addEventListener("scroll", (e) => e.target.matches?.("#stage .dock .hand") && markOverflow(e.target), true);
$(".players-panel").addEventListener("scroll", (e) => markOverflowY(e.target));
addEventListener("resize", () => {
  $$("#stage .dock .hand").forEach(markOverflow);
  $$(".players-panel").forEach(markOverflowY);
});

$("#log-toggle").addEventListener("click", () => {
  toggleLog();
  render();
});

$("#leave").addEventListener("click", async () => {
  const playing = S.room.state === "playing" && S.room.you.role === "player";
  // What leaving does mid-game is the game's own rule (its catalog entry says it).
  const rule = GAMES[S.room.kind]?.leave_rule ?? "The others play on without you.";
  // Nobody else seated in the game is a person (bots, or none): leaving ends it (the server's rule,
  // or the room's: it does not let bots play on alone). The game's rule had said "the others play on".
  const people = (S.room.play?.seats ?? []).filter((s) => s.member !== S.room.you.member && S.room.members.some((m) => m.id === s.member && !m.bot));
  // A host who leaves hands the room on, as the server does (the longest-present connected person,
  // players first): said before, not only to the one who gets it.
  const others = S.room.members.filter((m) => !m.bot && m.id !== S.room.you.member);
  const next = others.sort((a, b) => (b.connected - a.connected) || ((b.role === "player") - (a.role === "player")))[0];
  const hosting = S.room.host === S.room.you.member && next ? ` ${next.name} will host the room.` : "";
  const running = people.length ? `The game is running. ${rule}` : "You are the last person playing: leaving ends the game.";
  const text = (playing ? running : "You can come back with the room code.") + hosting;
  if (await confirmDialog("Leave this room?", text, "Leave")) {
    await app.send("leave");
    leftRoom();
  }
});

// In a room the logo asks to leave it, as Exit does: as a plain link to "/" it reloaded the page, which
// came back into the room, so "home" seemed to do nothing.
$(".brand").addEventListener("click", (e) => {
  if (!S.room || e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey || e.altKey) return;
  e.preventDefault();
  $("#leave").click();
});

const mute = $("#mute");
const showMute = () => {
  mute.textContent = isMuted() ? "♪ off" : "♪ on";
  mute.setAttribute("aria-pressed", String(isMuted()));
  mute.setAttribute("aria-label", isMuted() ? "Sound is off: turn it on" : "Sound is on: mute");
};
mute.addEventListener("click", () => {
  setMuted(!isMuted());
  showMute();
});
showMute();

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) {
    S.unreadChat = 0;
    updateTitle();
  }
});

setInterval(updateTimers, 250);
// Visitors without a session cannot subscribe to the live lobby: poll the HTTP list instead.
setInterval(() => !S.session && !S.room && pollLobby(), 5000);
pollLobby();
showScreen("screen-start");
document.body.dataset.ready = "true"; // the catalog is loaded and the first screen drawn
