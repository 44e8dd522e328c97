/* The one replay viewer, and the live table. A stored deal steps through its frames with the
 * same controls, move list, seats, keys and address for every game; what a frame looks like is
 * the game's viewer's (a script module the game names, loaded from the game's own place), or,
 * for a game without one, the generic viewer's: each frame's text (the game's State.text).
 *
 * A game's viewer imports nothing: it exports `replay(d, kit)` and `live(table, kit)` (either may
 * be missing) and gets what it draws with in `kit` (elements from text only, the number format). */
import { h, s, clear, link, card, badge } from "./dom.js";
import { elo, signed, pct, chips, ms, roomName, when } from "./format.js";
import { MODE, main, setCrumbs, setTitle } from "./shell.js";

const kit = { h: h, s: s, clear: clear, card: card, badge: badge, fmt: { elo: elo, signed: signed, pct: pct, chips: chips, ms: ms, roomName: roomName } };

// ---- the viewers ----------------------------------------------------------------------
// A report holds its games' viewers in the page already (window.ZA_VIEWERS, by game); the
// server serves each at the address its page names (`viewer`).
const loaded = new Map();
export function viewerFor(game, url) {
  const bundled = window.ZA_VIEWERS && Object.prototype.hasOwnProperty.call(window.ZA_VIEWERS, game) ? window.ZA_VIEWERS[game] : null;
  if (bundled) return Promise.resolve(bundled);
  if (!url || MODE !== "api") return Promise.resolve(generic);
  if (!loaded.has(url)) loaded.set(url, import(new URL(url, document.baseURI).href).catch(function (err) {
    console.warn("the viewer at " + url + " did not load (" + err + "): the generic viewer draws this game");
    return generic;
  }));
  return loaded.get(url);
}

// A game without a viewer of its own: each frame's text (a seat's own view when the frame
// holds one per seat), the move that led there, and the result's breakdown as the game gives
// it; a table in play as its seats and its moves (never a frame's text: it shows every hand).
const generic = {
  generic: true,
  replay: function (d) {
    return {
      subtitle: "match " + d.match + ", board " + d.board + ", " + roomName(d.room) + " room, deal " + (d.number + 1) +
        " · " + d.variant + " · seed " + d.seed + " · dealer seat " + d.dealer,
      feltClass: "felt text-felt",
      draw: function (felt, k, seat, seatName) {
        const f = d.frames[k];
        felt.appendChild(h("div", { class: "lastmove", id: "lastmove" }, f.move
          ? "Move " + k + ": seat " + f.move.seat + " (" + seatName(f.move.seat) + ") " + toldText(f.move, seat) + (f.move.ms !== null && f.move.ms !== undefined ? " · " + ms(f.move.ms) : "")
          : "The deal as dealt" + (f.to_move !== null && f.to_move !== undefined ? ": seat " + f.to_move + " (" + seatName(f.to_move) + ") to move." : ".")));
        // one seat's view where the game gives each seat's (`views`), else the whole position
        const text = seat !== null && f.views && typeof f.views[seat] === "string" ? f.views[seat]
          : typeof f.text === "string" ? f.text : JSON.stringify(withoutMove(f), null, 1);
        felt.appendChild(h("pre", { class: "frame-text", id: "frame-text", "data-seat": seat === null ? "all" : seat }, text));
      },
      score: function (c) {
        if (d.breakdown !== null && d.breakdown !== undefined) c.appendChild(h("pre", { class: "frame-text" }, JSON.stringify(d.breakdown, null, 1)));
        else c.appendChild(h("p", null, "The deal stopped here."));
      },
    };
  },
  live: function (x) {
    return {
      subtitle: roomName(x.room_no) + " room · board " + x.board_no + " · " + x.variant + " · move " + x.moves.length,
      feltClass: "felt text-felt",
      draw: function (felt) {
        felt.appendChild(h("ul", { class: "entrants-list", id: "live-seats" }, x.bots.map(function (bot, seat) {
          return h("li", { "data-seat": seat }, h("span", { class: "muted" }, "Seat " + seat + " "), bot,
            x.to_move === seat ? [" ", badge("to move", "running")] : null);
        })));
        const last = x.moves.length ? x.moves[x.moves.length - 1] : null;
        felt.appendChild(h("div", { class: "lastmove", id: "lastmove" }, last ? "Move " + x.moves.length + ": seat " + last.seat + " (" + x.bots[last.seat] + ") " + last.text
          : "The deal as dealt."));
      },
    };
  },
};
function withoutMove(f) {
  const out = {};
  Object.keys(f).forEach(function (k) { if (k !== "move") out[k] = f[k]; });
  return out;
}

// ---- a stored deal ----------------------------------------------------------------------
// `page`: the app's page object (its keys and address hooks go there); `r`: the address's
// step, seat, follow and autoplay.
export function replayPage(d, r, page, viewer) {
  const v = (viewer.replay ? viewer : generic).replay(d, kit);
  const n = d.frames.length - 1;
  const state = { step: clampStep(r.step, n), seat: parseSeat(r.seat, d.players) };
  setCrumbs([["", "Tournaments"], ["t=" + d.tournament_id, d.tournament],
    ["t=" + d.tournament_id + "&match=" + d.match, "match " + d.match], [null, "deal " + d.deal_id]]);
  setTitle(["Deal " + d.deal_id, d.tournament]);
  const seatName = function (seat) { const x = d.seats.find(function (q) { return q.seat === seat; }); return x ? x.bot : "?"; };
  const sides = v.sides !== undefined ? v.sides : d.sides !== d.players;
  main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Deal " + d.deal_id), h("span", { class: "muted" }, v.subtitle)));

  const ctl = stepControls(d, state, n, page, go, draw);
  const felt = h("div", { class: v.feltClass || "felt", id: "felt" });
  const score = h("div", { id: "score", class: "score-area" });
  const list = h("ol", { class: "moves", id: "movelist" });
  list.appendChild(h("li", { "data-step": 0, onclick: function () { go(0); } }, h("span", { class: "n" }, "0"), h("span", null, "the deal")));
  d.frames.slice(1).forEach(function (f, i) {
    list.appendChild(h("li", { "data-step": i + 1, onclick: function () { go(i + 1); } },
      h("span", { class: "n" }, String(i + 1)), h("span", { class: "s" }, "S" + f.move.seat), h("span", { class: "mono" }, toldText(f.move, state.seat)),
      v.note ? v.note(i + 1) : null));
  });
  const seatsCard = h("section", { class: "card seats-card" }, h("h2", null, "Seats"), h("table", { id: "seats" },
    h("thead", null, h("tr", null, ["Seat", sides ? "Side" : null, "Bot", "Announced itself as", "Ended"]
      .filter(function (x) { return x !== null; }).map(function (x) { return h("th", null, x); }))),
    h("tbody", null, d.seats.map(function (q) {
      return h("tr", null, h("td", { class: "num" }, q.seat), sides ? h("td", { class: "num" }, d.seat_sides[q.seat]) : null,
        h("td", { class: "bot" }, q.bot), h("td", null, h("span", { class: "says" }, q.says)),
        h("td", null, q.status === "ok" ? "ok" : [badge(q.status, "fault"), " ", q.detail]));
    }))));
  const layout = h("div", { class: "replay" });
  layout.appendChild(h("section", { class: "card felt-card" }, ctl.controls, felt,
    h("p", { class: "keys" }, h("kbd", null, "\u2190"), " ", h("kbd", null, "\u2192"), " step, ",
      h("kbd", null, "space"), " play or pause, ", h("kbd", null, "Home"), " ", h("kbd", null, "End"),
      " first and last; the address names the deal, view and move, to share." + (v.keys ? " " + v.keys : ""))));
  layout.appendChild(h("section", { class: "card moves-card" }, h("h2", null, "Moves"), list));
  layout.appendChild(score);
  layout.appendChild(seatsCard);
  main.appendChild(layout);

  function draw() {
    ctl.update();
    clear(felt);
    v.draw(felt, state.step, state.seat, seatName);
    d.frames.forEach(function (f, k) {  // each move as the chosen seat was told of it
      if (k && f.move.public !== undefined) list.children[k].querySelector(".mono").textContent = toldText(f.move, state.seat);
    });
    markStep(list, state.step);
    clear(score);
    if (state.step === n) {
      const c = card(v.scoreTitle || "Result");
      c.id = "breakdown";
      v.score(c, seatName);
      if (d.forfeit) c.appendChild(h("p", { class: "error" }, "Seat " + d.forfeit.seat + " faulted (" + d.forfeit.status + ": ",
        h("span", null, d.forfeit.detail || ""), ")" + (d.forfeit.side !== undefined && d.forfeit.side !== null && sides
          ? "; side " + d.forfeit.side + " forfeits the table." : " and forfeits.")));
      if (d.points) c.appendChild(h("p", { class: "muted" }, v.stored ? v.stored(d.points) : "Stored points: " + d.points.join(" – ") + "."));
      score.appendChild(c);
    }
    stepHash(d, state, r);
  }
  function go(k) {
    state.step = Math.max(0, Math.min(n, k | 0));
    draw();
  }
  page.fromHash = function (r2) {
    state.step = clampStep(r2.step, n);
    state.seat = parseSeat(r2.seat, d.players);
    draw();
  };
  page.onKey = function (e) {
    if (e.target && e.target.tagName === "INPUT") return;  // the number box and the slider have their own keys
    if (e.key === "ArrowRight") { go(state.step + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { go(state.step - 1); e.preventDefault(); }
    else if (e.key === "Home") { go(0); e.preventDefault(); }
    else if (e.key === "End") { go(n); e.preventDefault(); }
    else if (e.key === " ") { ctl.toggle(); e.preventDefault(); }
  };
  draw();
  if (r.follow) {
    main.insertBefore(h("p", { class: "card following", id: "following" }, "Following match " + r.follow.split("-")[1] +
      ": this is its newest stored deal; the next one opens and plays when it is stored. ",
      link("t=" + r.follow.split("-")[0] + "&match=" + r.follow.split("-")[1], "the match")), main.firstChild.nextSibling);
    if (r.autoplay || state.step === 0) ctl.toggle();
  }
}

// The replay's controls: the steps, play, the slider, a move number, and the view of all hands
// or one seat's; `update` shows the current step. Playing stops when the page is left.
function stepControls(d, state, n, page, go, draw) {
  const stepText = h("span", { class: "stepno", id: "stepno" });
  const range = h("input", { type: "range", min: 0, max: n, value: state.step, id: "step-range", "aria-label": "move" });
  const jump = h("input", { type: "number", min: 0, max: n, id: "jump", "aria-label": "go to move" });
  const btn = function (label, title, id, fn) { return h("button", { type: "button", title: title, id: id, onclick: fn }, label); };
  const first = btn("\u00AB", "first (Home)", "first", function () { go(0); });
  const back = btn("\u25C0", "back (\u2190)", "back", function () { go(state.step - 1); });
  const fwd = btn("\u25B6", "forward (\u2192)", "forward", function () { go(state.step + 1); });
  const end = btn("\u00BB", "last (End)", "last", function () { go(n); });
  let timer = null;
  const play = btn("play", "play the moves one a second (space)", "play", function () { toggle(); });
  function toggle(off) {
    if (timer !== null || off) {
      if (timer !== null) clearInterval(timer);
      timer = null;
      play.textContent = "play";
      return;
    }
    if (state.step >= n) go(0);
    play.textContent = "pause";
    timer = setInterval(function () {
      if (!page.shown() || state.step >= n) return toggle(true);
      go(state.step + 1);
    }, 1000);
  }
  range.addEventListener("input", function () { go(Number(range.value)); });
  jump.addEventListener("change", function () {
    if (jump.value === "") return;
    go(Number(jump.value));
    jump.value = "";
    jump.blur();  // so that the arrow keys step again
  });
  const views = h("span", { class: "views", id: "views" });
  const viewButtons = [];
  for (let v = -1; v < d.players; v++) {
    const b = h("button", { type: "button", "data-seat": v, onclick: function () { state.seat = v < 0 ? null : v; draw(); } },
      v < 0 ? "All hands" : "Seat " + v);
    viewButtons.push(b);
    views.appendChild(b);
  }
  const controls = h("div", { class: "controls" }, h("span", { class: "steps" }, first, back, stepText, fwd, end, play), range,
    h("label", { class: "muted" }, "move ", jump), views);
  function update() {
    stepText.textContent = "move " + state.step + " / " + n;
    range.value = state.step;
    first.disabled = back.disabled = state.step === 0;
    fwd.disabled = end.disabled = state.step === n;
    viewButtons.forEach(function (b) {
      const v = Number(b.getAttribute("data-seat"));
      b.classList.toggle("on", (v < 0 && state.seat === null) || v === state.seat);
    });
  }
  return { controls: controls, toggle: toggle, update: update };
}

// The moves list's current step, in view.
function markStep(list, step) {
  list.querySelectorAll("li.on").forEach(function (li) { li.classList.remove("on"); });
  const li = list.querySelector('li[data-step="' + step + '"]');
  if (li) {
    li.classList.add("on");
    const top = li.offsetTop - list.offsetTop;
    if (top < list.scrollTop || top > list.scrollTop + list.clientHeight - li.offsetHeight) list.scrollTop = top - list.clientHeight / 2;
  }
}
// The address names the deal, the view and the step, to share.
function stepHash(d, state, r) {
  const hash = "deal=" + d.deal_id + (state.seat === null ? "" : "&seat=" + state.seat) + "&step=" + state.step +
    (r.follow ? "&follow=" + r.follow : "");
  if (location.hash.replace(/^#/, "") !== hash) history.replaceState(null, "", "#" + hash);
}
function clampStep(text, n) {
  const k = text === null || text === undefined || text === "" ? 0 : parseInt(text, 10);
  return isNaN(k) ? 0 : Math.max(0, Math.min(n, k));
}
// A move as `seat` was told of it: in full to its own seat and to "All hands" (seat null), else
// its public form where the game keeps part of it private (`public`: a card buried face down).
function toldText(move, seat) {
  return seat !== null && seat !== move.seat && move.public !== undefined ? move.public : move.text;
}

function parseSeat(text, players) {
  if (text === null || text === undefined || text === "") return null;
  const k = parseInt(text, 10);
  return isNaN(k) || k < 0 || k >= players ? null : k;
}

// ---- a table in play ----------------------------------------------------------------------
// Its public view only (arena.play.live), drawn by its game's viewer beside its moves so far.
export function livePage(data, viewer) {
  const t = data.tournament, x = data.table;
  const v = (viewer.live ? viewer : generic).live(x, kit);
  setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], ["t=" + t.id + "&match=" + x.match_no, "match " + x.match_no], [null, "playing now"]]);
  setTitle(["Match " + x.match_no + " now", t.name]);
  main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Match " + x.match_no + ", playing now"), badge("running"),
    h("span", { class: "muted" }, v.subtitle)));
  const felt = h("div", { class: v.feltClass || "felt", id: "live-felt" });
  v.draw(felt);
  const list = h("ol", { class: "moves", id: "live-moves" }, x.moves.map(function (m, i) {
    return h("li", null, h("span", { class: "n" }, String(i + 1)), h("span", { class: "s" }, "S" + m.seat), h("span", { class: "mono" }, m.text));
  }));
  const layout = h("div", { class: "replay" });
  layout.appendChild(h("section", { class: "card felt-card" }, felt,
    h("p", { class: "keys" }, "The public view only: the hands stay hidden while the deal is played; it follows the table by itself. Updated " +
      when(x.updated) + " UTC.")));
  layout.appendChild(h("section", { class: "card moves-card" }, h("h2", null, "Moves"), list));
  main.appendChild(layout);
  list.scrollTop = list.scrollHeight;
}
