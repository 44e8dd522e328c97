/* The results pages: one small app for `arena serve` and `arena report`, in modules: the shell
 * (shell.js), elements from text (dom.js), one number format (format.js), one chart (chart.js),
 * the views (pages.js), one replay viewer with each game's own drawing (replay.js). This one
 * reads the data and routes.
 *
 * Data comes from the server (/api/KEY, ZA_MODE "api") or from data files beside the page
 * (data/KEY.js, ZA_MODE "files": a browser reads no file from disk with fetch(); scripts it
 * runs). The URL's hash names the page: #t=3, #t=3&bot=5, #t=3&match=7, #deal=17&seat=2&step=5.
 */
import { h, clear, link } from "./dom.js";
import { MODE, main } from "./shell.js";
import { listPage, tournamentPage, botPage, matchPage } from "./pages.js";
import { replayPage, livePage, viewerFor } from "./replay.js";
import { leaguePage } from "./league.js";

const liveBadge = document.getElementById("live");

// ---- data ---------------------------------------------------------------------------
const store = new Map();
const waiting = new Map();
window.ZA_DATA = function (key, value) { store.set(key, value); };

function dataFile(key) { return "data/" + key.split("/").join("-") + ".js"; }  // site.data_file

function load(key, fresh) {
  if (MODE === "api") {
    return fetch("api/" + key, { cache: "no-store" }).then(function (r) {
      return r.json().then(function (body) {
        if (!r.ok) throw new Error(body.error || ("HTTP " + r.status));
        return body;
      });
    });
  }
  if (store.has(key) && !fresh) return Promise.resolve(store.get(key));
  if (waiting.has(key)) return waiting.get(key);
  const p = new Promise(function (resolve, reject) {
    const el = document.createElement("script");
    el.src = dataFile(key);
    el.onload = function () {
      waiting.delete(key);
      if (store.has(key)) resolve(store.get(key)); else reject(new Error("no data for " + key));
    };
    el.onerror = function () { waiting.delete(key); reject(new Error("this report does not hold " + key)); };
    document.head.appendChild(el);
  });
  waiting.set(key, p);
  return p;
}

// ---- routing ------------------------------------------------------------------------
function route() {
  const q = new URLSearchParams(location.hash.replace(/^#/, ""));
  return { t: q.get("t"), bot: q.get("bot"), match: q.get("match"), deal: q.get("deal"),
           seat: q.get("seat"), step: q.get("step"), follow: q.get("follow"), autoplay: q.get("autoplay"), live: q.get("live"),
           league: q.get("league") };
}
let current = null;       // {kind, key, render(data), version: the data's}
let started = false;

function showError(err) {
  clear(main);
  main.appendChild(h("section", { class: "card" }, h("p", { class: "error" }, String(err.message || err)),
    h("p", null, link("", "All tournaments"))));
}

// A view opened at its own address (/t/3, /deal/17: the server's route for it) is shown at
// the app's (/#t=3), whose links are all hashes.
function viewHash(path) {
  const p = path.replace(/^\/+/, "").split("/");
  if (p.length === 1 && p[0] === "tournaments") return "";
  if (p.length === 2 && p[0] === "deal") return "deal=" + p[1];
  if (p[0] !== "t") return null;
  if (p.length === 2) return "t=" + p[1];
  if (p.length === 4 && (p[2] === "bot" || p[2] === "match")) return "t=" + p[1] + "&" + p[2] + "=" + p[3];
  if (p.length === 5 && p[2] === "live") return "live=" + p[1] + "-" + p[3] + "-" + p[4];
  return null;
}

// A page drawn by a game's viewer waits for that viewer (a module loaded once per game).
function withViewer(draw) {
  return function (data) {
    const x = data.table || data;
    return viewerFor(x.game, x.viewer).then(function (viewer) {
      if (!viewer.generic) useStyle(x.viewer_style);
      return function () { draw(data, viewer); };
    });
  };
}

// A game viewer's stylesheet (beside its module), added to the page once.
function useStyle(url) {
  if (!url || document.querySelector('link[data-viewer-style="' + CSS.escape(url) + '"]')) return;
  document.head.appendChild(h("link", { rel: "stylesheet", href: url, "data-viewer-style": url }));
}

function navigate() {
  if (!started && MODE === "api" && !location.hash && viewHash(location.pathname) !== null)
    history.replaceState(null, "", "/#" + viewHash(location.pathname));
  if (!started && !location.hash && window.ZA_START) history.replaceState(null, "", "#" + window.ZA_START);  // a report opens on its tournament
  started = true;
  const r = route();
  if (r.deal !== null) {
    if (current && current.kind === "deal" && current.id === r.deal && current.fromHash) { current.fromHash(r); return; }
    const page = { kind: "deal", id: r.deal, key: "deal/" + r.deal, follow: r.follow };
    page.prepare = withViewer(function (d, viewer) { replayPage(d, r, page, viewer); });
    return show(page);
  }
  if (r.live !== null) {
    const parts = r.live.split("-");
    return show({ kind: "live", key: "t/" + parts[0] + "/live/" + parts[1] + "/" + parts[2], prepare: withViewer(livePage) });
  }
  if (r.t !== null && r.bot !== null)
    return show({ kind: "bot", key: "t/" + r.t + "/bot/" + r.bot, render: botPage });
  if (r.t !== null && r.match !== null)
    return show({ kind: "match", key: "t/" + r.t + "/match/" + r.match, render: matchPage });
  if (r.t !== null) return show({ kind: "tournament", key: "t/" + r.t, render: tournamentPage });
  if (r.league !== null || window.ZA_HOME === "league") return show({ kind: "league", key: "league", render: leaguePage });
  return show({ kind: "list", key: "tournaments", render: listPage });
}

// Draw `page` from its data: `render(data)` at once, or `prepare(data)`, which resolves to what
// draws it once what it needs (a game's viewer) is there.
function draw(page, data) {
  const ready = page.prepare ? page.prepare(data) : Promise.resolve(function () { page.render(data); });
  return ready.then(function (drawIt) {
    if (current !== page) return false;
    clear(main);
    page.version = data.data_version;
    drawIt();
    setLive(data);
    return true;
  });
}

function show(page) {
  current = page;
  page.shown = function () { return current === page; };
  return load(page.key).then(function (data) {
    return draw(page, data).then(function (drawn) {
      if (!drawn) return;
      window.scrollTo(0, 0);
      subscribe(page);
    });
  }).catch(function (err) { if (current === page) showError(err); });
}

function setLive(data) {
  const t = data && data.tournament;
  const running = MODE === "api" && (data && data.playing ? true : t ? t.status === "running"
    : !!(data && data.tournaments && data.tournaments.some(function (x) { return x.status === "running"; })));
  liveBadge.hidden = !running;
}

// Live updates: the server pushes a page's data each time it changes (server-sent events:
// `api/KEY` asked with Accept: text/event-stream); the page is redrawn in place when the data
// is newer than what it shows. A table in play is pushed at each move; a deal followed in its
// match listens to its tournament's page for a newer deal.
let stream = null;
function subscribe(page) {
  if (stream) { stream.close(); stream = null; }
  if (MODE !== "api" || typeof EventSource === "undefined") return;
  const key = page.kind !== "deal" ? page.key : page.follow ? "t/" + page.follow.split("-")[0] : null;
  if (!key) return;
  const es = new EventSource("api/" + key + (page.version ? "?since=" + encodeURIComponent(page.version) : ""));
  es.addEventListener("page", function (e) { if (current === page) pushed(page, JSON.parse(e.data)); });
  es.addEventListener("gone", function (e) {
    es.close();
    if (current === page) gone(page, JSON.parse(e.data).error);
  });
  stream = es;
}
function pushed(page, data) {
  if (page.kind === "deal") return followDeal(page, data);
  if (page.kind !== "live" && data.data_version === page.version) return;
  const y = window.scrollY;
  draw(page, data).then(function (drawn) { if (drawn) window.scrollTo(0, y); });
}
// A table in play whose room has ended: the page says so and links to the match.
function gone(page, message) {
  if (page.kind !== "live") return showError(new Error(message));
  if (!document.getElementById("live-ended")) main.insertBefore(h("p", { class: "card following", id: "live-ended" },
    message + ": the room has ended; its boards are in the match's page."), main.firstChild);
}
// Watching a match in play: when a newer deal of it is stored, open that one and play it.
function followDeal(page, data) {
  const parts = page.follow.split("-");
  const m = data.matches.find(function (x) { return String(x.match_no) === parts[1]; });
  if (m && m.latest_deal && String(m.latest_deal) !== String(page.id))
    location.hash = "deal=" + m.latest_deal + "&follow=" + page.follow + "&autoplay=1";
}

document.addEventListener("keydown", function (e) { if (current && current.onKey) current.onKey(e); });
window.addEventListener("hashchange", navigate);
navigate();
