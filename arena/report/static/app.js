/* Zwicker Arena: the results pages, one small app for `arena serve` and `arena report`.
 *
 * Data comes from the server (/api/KEY, ZA_MODE "api") or from data files beside the page
 * (data/KEY.js, ZA_MODE "files": fetch() does not read files from disk, scripts do).
 * The URL's hash names the page: #t=3, #t=3&bot=5, #t=3&match=7, #deal=17&seat=2&step=5.
 *
 * Everything bots wrote (names, versions, details, stderr) is untrusted: every element is
 * made with createElement and filled with textContent; no HTML string is ever parsed.
 */
"use strict";
(function () {
  const MODE = window.ZA_MODE === "files" ? "files" : "api";
  const main = document.getElementById("main");
  const crumbs = document.getElementById("crumbs");
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
      const s = document.createElement("script");
      s.src = dataFile(key);
      s.onload = function () {
        waiting.delete(key);
        if (store.has(key)) resolve(store.get(key)); else reject(new Error("no data for " + key));
      };
      s.onerror = function () { waiting.delete(key); reject(new Error("this report does not hold " + key)); };
      document.head.appendChild(s);
    });
    waiting.set(key, p);
    return p;
  }

  // ---- DOM helpers: text only ---------------------------------------------------------
  function h(tag, attrs) {
    const el = document.createElement(tag);
    setAttrs(el, attrs);
    for (let i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  const SVGNS = "http://www.w3.org/2000/svg";
  function s(tag, attrs) {
    const el = document.createElementNS(SVGNS, tag);
    setAttrs(el, attrs);
    for (let i = 2; i < arguments.length; i++) add(el, arguments[i]);
    return el;
  }
  function setAttrs(el, attrs) {
    if (!attrs) return;
    for (const k of Object.keys(attrs)) {
      const v = attrs[k];
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.setAttribute("class", v);
      else if (k === "style") el.style.cssText = v;  // through the CSSOM: the server's policy refuses style attributes
      else if (k === "text") el.textContent = String(v);
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, String(v));
    }
  }
  function add(el, child) {
    if (child === null || child === undefined || child === false) return;
    if (Array.isArray(child)) { for (const c of child) add(el, c); return; }
    if (child instanceof Node) { el.appendChild(child); return; }
    el.appendChild(document.createTextNode(String(child)));
  }
  function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
  function link(hash, text, cls) { return h("a", { href: "#" + hash, class: cls }, text); }
  function card(title) { return h("section", { class: "card" }, title ? h("h2", null, title) : null); }

  // ---- formatting ---------------------------------------------------------------------
  function elo(x) {
    if (x === null || x === undefined) return "–";
    const r = Math.round(x);
    return r > 0 ? "+" + r : r < 0 ? "−" + (-r) : "0";
  }
  function signed(x, digits) {
    const t = Math.abs(x).toFixed(digits || 0);
    return x > 0 ? "+" + t : x < 0 ? "−" + t : t;
  }
  function pct(x) { return x === null || x === undefined ? "–" : Math.round(100 * x) + "%"; }
  function when(iso) { return iso ? iso.slice(0, 19).replace("T", " ") : "–"; }
  function team(names) { return names[0] === names[1] ? names[0] : names.join(" + "); }
  function badge(text, cls) { return h("span", { class: "badge " + (cls || text) }, text); }

  // ---- routing ------------------------------------------------------------------------
  function route() {
    const q = new URLSearchParams(location.hash.replace(/^#/, ""));
    return { t: q.get("t"), bot: q.get("bot"), match: q.get("match"), deal: q.get("deal"),
             seat: q.get("seat"), step: q.get("step"), follow: q.get("follow"), autoplay: q.get("autoplay"), live: q.get("live") };
  }
  let current = null;       // {kind, key, render(data), version: the data's}
  let started = false;

  function setCrumbs(parts) {
    clear(crumbs);
    parts.forEach(function (p, i) {
      if (i) crumbs.appendChild(h("span", { class: "sep" }, "/"));
      crumbs.appendChild(p[0] !== null ? link(p[0], p[1]) : h("span", null, p[1]));
    });
  }
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

  function navigate() {
    if (!started && MODE === "api" && !location.hash && viewHash(location.pathname) !== null)
      history.replaceState(null, "", "/#" + viewHash(location.pathname));
    if (!started && !location.hash && window.ZA_START) history.replaceState(null, "", "#" + window.ZA_START);  // a report opens on its tournament
    started = true;
    const r = route();
    if (r.deal !== null) {
      if (current && current.kind === "deal" && current.id === r.deal) { current.fromHash(r); return; }
      return show({ kind: "deal", id: r.deal, key: "deal/" + r.deal, follow: r.follow, render: function (d) { return replayPage(d, r); } });
    }
    if (r.live !== null) {
      const parts = r.live.split("-");
      return show({ kind: "live", key: "t/" + parts[0] + "/live/" + parts[1] + "/" + parts[2], render: livePage });
    }
    if (r.t !== null && r.bot !== null)
      return show({ kind: "bot", key: "t/" + r.t + "/bot/" + r.bot, render: botPage });
    if (r.t !== null && r.match !== null)
      return show({ kind: "match", key: "t/" + r.t + "/match/" + r.match, render: matchPage });
    if (r.t !== null) return show({ kind: "tournament", key: "t/" + r.t, render: tournamentPage });
    return show({ kind: "list", key: "tournaments", render: listPage });
  }

  function show(page) {
    current = page;
    return load(page.key).then(function (data) {
      if (current !== page) return;
      clear(main);
      page.version = data.data_version;
      page.render(data);
      setLive(data);
      window.scrollTo(0, 0);
      subscribe(page);
    }).catch(function (err) { if (current === page) showError(err); });
  }

  function setLive(data) {
    const t = data && data.tournament;
    const running = MODE === "api" && (t ? t.status === "running"
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
    clear(main);
    page.version = data.data_version;
    page.render(data);
    setLive(data);
    window.scrollTo(0, y);
  }
  // A table in play whose room has ended: the page says so and links to the match.
  function gone(page, message) {
    if (page.kind !== "live") return showError(new Error(message));
    if (!document.getElementById("live-ended")) main.insertBefore(h("p", { class: "card following", id: "live-ended" },
      message + ": the room has ended; its boards are in the match's page."), main.firstChild);
  }

  function livePage(data) {
    if (data.table.game === "zwicken") return zwickenLive(data);
    const t = data.tournament, x = data.table;
    const room = x.swapped ? "swapped" : "straight";
    setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], ["t=" + t.id + "&match=" + x.match_no, "match " + x.match_no], [null, "playing now"]]);
    document.title = "Match " + x.match_no + " now · " + t.name + " · Zwicker Arena";
    main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Match " + x.match_no + ", playing now"), badge("running"),
      h("span", { class: "muted" }, room + " room · board " + x.board_no + (x.deal ? ", deal " + (x.deal + 1) : "") + " · " + x.variant +
        " · dealer seat " + x.dealer + " · move " + x.moves.length)));
    const POS = { 0: "south", 1: "west", 2: "north", 3: "east" };
    const felt = h("div", { class: "felt" + (x.players === 4 ? "" : " ring"), id: "live-felt" });
    for (let seat = 0; seat < x.players; seat++) {
      const box = h("div", { class: "seat" + (x.to_move === seat ? " tomove" : "") + (x.players === 4 ? " pos-" + POS[seat] : ""), "data-seat": seat },
        h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, x.bots[seat]),
          h("span", { class: "muted" }, "side " + x.seat_sides[seat]), seat === x.dealer ? badge("dealer", "") : null,
          x.to_move === seat ? badge("to move", "running") : null));
      const row = h("div", { class: "hand" });
      if (!x.hands[seat]) row.appendChild(h("div", { class: "empty" }, "no cards"));
      for (let k = 0; k < x.hands[seat]; k++) row.appendChild(cardEl(null));
      box.appendChild(row);
      felt.appendChild(box);
    }
    const units = h("div", { class: "units", id: "live-units" });
    if (!x.table.length) units.appendChild(h("div", { class: "empty muted" }, "The table is empty."));
    x.table.forEach(function (u, i) {
      units.appendChild(typeof u === "string"
        ? h("div", { class: "unit", "data-unit": i }, h("span", { class: "idx" }, String(i)), cardEl(u))
        : h("div", { class: "unit build", "data-unit": i }, h("span", { class: "idx" }, String(i)),
          h("div", { class: "pile" }, u.build.map(function (c) { return cardEl(c); })),
          h("span", { class: "tag" }, "= " + u.value + " · seat " + u.by)));
    });
    const last = x.moves.length ? x.moves[x.moves.length - 1] : null;
    felt.appendChild(h("div", { class: "center" },
      h("div", { class: "tableinfo" }, h("span", null, "Stock: " + x.stock),
        h("span", null, "Taken: " + x.taken.map(function (n, i) { return "side " + i + " " + n; }).join(", ")),
        h("span", null, "Zwicks: " + x.zwicks.map(function (n, i) { return "side " + i + " " + n; }).join(", ")),
        h("span", null, "Points so far: " + x.points.map(function (n, i) { return "side " + i + " " + n; }).join(", "))),
      units,
      h("div", { class: "lastmove", id: "lastmove" }, last ? "Move " + x.moves.length + ": seat " + last.seat + " (" + x.bots[last.seat] + ") " + last.text
        : "The deal as dealt: seat " + x.to_move + " plays first.")));
    liveLayout(x, felt);
  }

  // A live table's felt beside its moves so far (the newest in view), for every game.
  function liveLayout(x, felt) {
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

  // A Zwicken room in play: its public view (how many cards each seat holds, never which; the
  // trump card, the trick on the table, the pot and the balances).
  function zwickenLive(data) {
    const t = data.tournament, x = data.table;
    setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], ["t=" + t.id + "&match=" + x.match_no, "match " + x.match_no], [null, "playing now"]]);
    document.title = "Match " + x.match_no + " now · " + t.name + " · Zwicker Arena";
    main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Match " + x.match_no + ", playing now"), badge("running"),
      h("span", { class: "muted" }, roomName(x.room_no) + " room · board " + x.board_no + ", attempt " + (x.deal + 1) + " · " + x.variant +
        " · dealer seat " + x.dealer + " · move " + x.moves.length)));
    const felt = h("div", { class: "felt ring zw-felt", id: "live-felt" });
    const trumpCard = x.method === "schlecken" ? x.turned : x.exposed;
    const last = x.moves.length ? x.moves[x.moves.length - 1] : null;
    felt.appendChild(h("div", { class: "center" },
      h("div", { class: "tableinfo" }, h("span", null, "Pot: " + x.pot + " chips"),
        h("span", null, x.trump ? "Trumps: " + suitName(x.trump) + " (" + x.method + ")" : "Trumps: the dealer chooses"),
        h("span", null, "Stock: " + x.stock)),
      h("div", { class: "units", id: "live-units" }, trumpCard ? h("div", { class: "unit" }, h("span", { class: "idx" }, x.method === "schlecken" ? "turned" : "shown"), zwCard(trumpCard)) : null,
        x.trick.length ? h("div", { class: "zw-trick" }, x.trick.map(function (sc) {
          return h("div", { class: "unit", "data-seat": sc[0] }, h("span", { class: "idx" }, "S" + sc[0]), zwCard(sc[1]));
        })) : null),
      h("div", { class: "lastmove", id: "lastmove" }, last ? "Move " + x.moves.length + ": seat " + last.seat + " (" + x.bots[last.seat] + ") " + last.text
        : "The deal as dealt: the dealer, seat " + x.dealer + ", chooses how trumps are made.")));
    for (let seat = 0; seat < x.players; seat++) {
      const decided = x.decisions[seat], size = x.hand_sizes[seat];
      const row = h("div", { class: "hand" });
      if (decided === "pass") row.appendChild(h("div", { class: "empty" }, "passed"));
      else for (let k = 0; k < size; k++) row.appendChild(zwCard(null));
      felt.appendChild(h("div", { class: "seat" + (x.to_move === seat ? " tomove" : "") + (decided === "pass" ? " passed" : ""), "data-seat": seat },
        h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, x.bots[seat]),
          seat === x.dealer ? badge("dealer", "") : null, decided ? badge(decided, decided === "play" ? "finished" : "") : null,
          x.to_move === seat ? badge("to move", "running") : null),
        h("div", { class: "zw-stats" }, h("span", null, "balance " + chips(x.balances[seat])), h("span", null, "tricks " + x.tricks[seat])), row));
    }
    liveLayout(x, felt);
  }

  // Watching a match in play: when a newer deal of it is stored, open that one and play it.
  function followDeal(page, data) {
    const parts = page.follow.split("-");
    const m = data.matches.find(function (x) { return String(x.match_no) === parts[1]; });
    if (m && m.latest_deal && String(m.latest_deal) !== String(page.id))
      location.hash = "deal=" + m.latest_deal + "&follow=" + page.follow + "&autoplay=1";
  }

  // ---- tournaments ----------------------------------------------------------------------
  // A board is done when both its rooms are stored; a table stored alone waits for its other room.
  // (k entrants: a board is done when all its k rooms are.)
  function progressText(t) {
    const rooms = t.rooms || 2;
    const waiting = Math.max(0, t.tables_done - rooms * t.boards_done);
    if (rooms !== 2) return t.boards_done + " of " + t.boards_total + " boards" +
      (waiting ? " · " + waiting + " more " + (waiting === 1 ? "room" : "rooms") + " of unfinished boards stored (" + rooms + " rooms a board)" : "");
    return t.boards_done + " of " + t.boards_total + " boards" +
      (waiting ? " · " + waiting + (waiting === 1 ? " more board has" : " more boards have") + " one room in, the other to come" : "");
  }
  function progress(t) {
    const frac = t.boards_total ? t.boards_done / t.boards_total : 0;
    return h("div", { class: "progress-wrap" },
      h("div", { class: "progress", role: "progressbar", "aria-valuenow": t.boards_done, "aria-valuemax": t.boards_total },
        h("div", { style: "width:" + (100 * frac).toFixed(1) + "%" })),
      h("div", { class: "progress-text", "data-test": "progress" }, progressText(t)));
  }

  function listPage(data) {
    setCrumbs([[null, "Tournaments"]]);
    document.title = "Tournaments · Zwicker Arena";
    const c = card("Tournaments");
    if (!data.tournaments.length) {
      c.appendChild(h("p", { class: "muted" }, "No tournaments yet: run one with `arena tournament run`."));
    } else {
      c.appendChild(h("table", { id: "tournaments" },
        h("thead", null, h("tr", null, ["Name", "Status", "Leader", "Boards", "Variant", "Bots", "Created"]
          .map(function (x, i) { return h("th", { class: (i === 3 || i === 5 ? "num" : "") + (i >= 4 ? " wide-only" : "") }, x); }))),
        h("tbody", null, data.tournaments.slice().reverse().map(function (t) {
          const frac = t.boards_total ? t.boards_done / t.boards_total : 0;
          return h("tr", null,
            h("td", { class: "bot" }, link("t=" + t.id, t.name),
              h("span", { class: "narrow-only sub" }, t.variant_text + " · " + t.bots + " bots")),
            h("td", null, badge(t.status)),
            h("td", { "data-col": "leader" }, t.leader ? [h("span", { class: "bot" }, t.leader.bot), " ", h("span", { class: "muted" }, t.leader.elo)] : h("span", { class: "muted" }, "–")),
            h("td", { class: "num" }, t.boards_done + " / " + t.boards_total,
              t.status === "running" ? h("div", { class: "progress mini" }, h("div", { style: "width:" + (100 * frac).toFixed(1) + "%" })) : null),
            h("td", { class: "wide-only" }, t.variant_text + ", " + t.format + ", " + (t.partnerships === false ? t.seating : t.partners)),
            h("td", { class: "num wide-only" }, t.bots),
            h("td", { class: "muted wide-only" }, when(t.created)));
        }))));
    }
    main.appendChild(c);
  }

  function tournamentHead(t, sub) {
    return h("div", { class: "page-head" }, h("h1", null, sub || t.name), badge(t.status),
      sub ? null : h("span", { class: "muted" }, t.variant_text + ", " + t.format + " format, " + (t.seating || t.partners + " partners")));
  }

  function tournamentPage(data) {
    const t = data.tournament;
    setCrumbs([["", "Tournaments"], [null, t.name]]);
    document.title = t.name + " · Zwicker Arena";
    main.appendChild(tournamentHead(t));
    main.appendChild(progress(t));
    if (data.sprt) main.appendChild(sprtCard(data.sprt));
    main.appendChild(standingsCard(data.standings, data.standings_table, t));
    const playing = data.matches.filter(function (m) { return m.playing; });
    if (playing.length) main.appendChild(playingCard(playing, data.live || {}, t));
    main.appendChild(crosstableCard(data.crosstable, data.standings, t, data.entrants ? data.unit : null));
    main.appendChild(historyCard(data.history));
    main.appendChild(matchesCard(data.matches, t));
    const grid = h("div", { class: "grid2" });
    grid.appendChild(latestCard(data.latest, t));
    grid.appendChild(settingsCard(t));
    main.appendChild(grid);
  }

  // An SPRT as fishtest shows one: the LLR over the boards between its two bounds, the
  // hypotheses and error rates, the pentanomial counts, the verdict and NEW's Elo.
  // The verdict in the terminal's words (arena/tournaments/sprt.py): H0 is accepted against elo1.
  function verdictText(x) {
    return {
      running: "running",
      H0: "H0 accepted: " + x.new + " is not better than " + x.old + " by elo1 = " + x.elo1,
      H1: "H1 accepted: " + x.new + " is better than " + x.old + " (by elo1 = " + x.elo1 + " rather than elo0 = " + x.elo0 + ")",
      limit: "stopped at the board limit, no verdict", stopped: "stopped before a verdict",
      faults: "stopped without a decision: more than " + Math.round(100 * x.max_faults) + "% of the tables ended in a fault" }[x.verdict] || x.verdict;
  }
  function sprtCard(x) {
    const c = card("SPRT: " + x.new + " against " + x.old);
    c.id = "sprt";
    c.appendChild(h("p", { class: "verdict" }, badge(x.verdict === "running" ? "running" : x.verdict, x.verdict === "H1" ? "finished" :
      x.verdict === "H0" ? "interrupted" : x.verdict === "running" ? "running" : ""), " ",
      h("span", { id: "sprt-verdict" }, verdictText(x))));
    c.appendChild(h("p", { id: "sprt-faults" }, x.faults_text));
    const W = 900, H = 260, L = 44, R = 110, T = 12, B = 28;
    const last = Math.max(1, x.path[x.path.length - 1][0]);
    let lo = x.lower, hi = x.upper;
    x.path.forEach(function (p) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); });
    const pad = (hi - lo) * 0.08; lo -= pad; hi += pad;
    const X = function (n) { return L + n / last * (W - L - R); };
    const Y = function (v) { return T + (hi - v) / (hi - lo) * (H - T - B); };
    const g = s("svg", { viewBox: "0 0 " + W + " " + H, role: "img", id: "llr", "aria-label": "the log-likelihood ratio over the boards, between its bounds" });
    niceTicks(lo, hi, 5).forEach(function (v) {
      g.appendChild(s("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#eef0f3" }));
      g.appendChild(s("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end" }, v.toFixed(1)));
    });
    niceTicks(0, last, 8).filter(function (q) { return q === Math.round(q); }).forEach(function (q) {
      g.appendChild(s("text", { x: X(q), y: H - 8, "text-anchor": "middle" }, String(q)));
    });
    [[x.upper, "H1: " + x.upper.toFixed(2), "bound-h1"], [x.lower, "H0: " + x.lower.toFixed(2), "bound-h0"], [0, "0", "zero"]].forEach(function (b) {
      g.appendChild(s("line", { class: "bound " + b[2], x1: L, x2: W - R, y1: Y(b[0]), y2: Y(b[0]) }));
      if (b[2] !== "zero") g.appendChild(s("text", { x: W - R + 6, y: Y(b[0]) + 4 }, b[1]));
    });
    g.appendChild(s("polyline", { class: "llr", points: x.path.map(function (p) { return X(p[0]).toFixed(1) + "," + Y(p[1]).toFixed(1); }).join(" "),
      fill: "none", "stroke-width": 2 }));
    const ch = h("div", { class: "chart" }, g);
    c.appendChild(ch);
    const dl = h("dl", { class: "settings", id: "sprt-facts" });
    [["LLR", x.llr.toFixed(2) + " after " + x.boards + " boards (bounds " + x.lower.toFixed(2) + " and " + x.upper.toFixed(2) + ")"],
      ["Hypotheses", "H0: " + x.new + " is " + signed(x.elo0, 1) + " Elo better per room; H1: " + signed(x.elo1, 1)],
      ["Error rates", "α " + x.alpha + " (H1 accepted when H0 holds), β " + x.beta + " (H0 accepted when H1 holds)"],
      ["Board limit", x.max_boards === null ? "none" : String(x.max_boards)],
      [x.new + "'s Elo", (x.boards ? signed(x.elo, 1) + " per room (95%: " + (x.elo_low === null ? "−∞" : signed(x.elo_low, 1)) + " … " +
        (x.elo_high === null ? "+∞" : signed(x.elo_high, 1)) + ")" : "–") + ", logistic Elo of one room's score, from the board scores"]]
      .forEach(function (r) { dl.appendChild(h("dt", null, r[0])); dl.appendChild(h("dd", null, r[1])); });
    c.appendChild(dl);
    c.appendChild(h("table", { id: "pentanomial", class: "penta" },
      h("thead", null, h("tr", null, h("th", null, "Board score (both rooms)"), ["0", "½", "1", "1½", "2"].map(function (k) { return h("th", { class: "num" }, k); }))),
      h("tbody", null, h("tr", null, h("td", null, "Boards"), x.counts.map(function (k) { return h("td", { class: "num" }, k); })))));
    return c;
  }

  function settingsCard(t) {
    const st = t.settings || {};
    const tc = st.time_control || {};
    const rows = [
      ["Variant", t.variant_text],
      ["Seed", t.seed],
      ["Boards per match", t.boards],
      ["Matches", t.matches],
      ["Format", t.format === "game" ? "game (a board is a game to the target)" : t.format === "session"
        ? "session (a board is a session of deals, played in each of its " + t.rooms + " rooms)" : "deal (a board is one deal)"],
      t.partnerships === false ? ["Seating", t.seating + (st.gauntlet ? ", gauntlet of " + st.gauntlet : "")]
        : ["Partners", t.partners + (st.gauntlet ? ", gauntlet of " + st.gauntlet : "")],
      ["Sandbox", (st.sandbox_labels || st.sandboxes || [st.sandbox]).filter(Boolean).join(", ") || "–"],
      ["Time control", tc.move_s !== undefined ? tc.move_s * 1000 + " ms a move, " + tc.bank_s * 1000 + " ms bank" : "–"],
      ["Bots", t.bots],
      ["Created", when(t.created)], ["Started", when(t.started)], ["Finished", when(t.finished)],
    ];
    const dl = h("dl", { class: "settings", id: "settings" });
    rows.forEach(function (r) { dl.appendChild(h("dt", null, r[0])); dl.appendChild(h("dd", null, r[1])); });
    const c = card("Settings");
    c.appendChild(dl);
    return c;
  }

  function latestCard(latest, t) {
    const c = card("Latest boards, newest first");
    if (!latest.length) { c.appendChild(h("p", { class: "muted" }, "No board finished yet.")); return c; }
    if (latest[0].entrants) {  // k entrants: each one's result over the board's rooms
      c.appendChild(h("table", { id: "latest" },
        h("thead", null, h("tr", null, h("th", null, "Stored"), h("th", null, "Match"), h("th", null, "Board"), h("th", null, "Result per entrant"))),
        h("tbody", null, latest.map(function (b) {
          return h("tr", null, h("td", { class: "muted num" }, (b.completed || "").slice(11, 19)),
            h("td", null, link("t=" + t.id + "&match=" + b.match_no, "#" + b.match_no)), h("td", { class: "num" }, b.board_no),
            h("td", null, entrantList(b.entrants, b.results, null, t)));
        }))));
      return c;
    }
    c.appendChild(h("table", { id: "latest" },
      h("thead", null, h("tr", null, h("th", null, "Stored"), h("th", null, "Match"), h("th", null, "Board"), h("th", null, "Team A"),
        h("th", null, "Team B"), h("th", { class: "num" }, "Margin A"))),
      h("tbody", null, latest.map(function (b) {
        return h("tr", null,
          h("td", { class: "muted num" }, (b.completed || "").slice(11, 19)),
          h("td", null, link("t=" + t.id + "&match=" + b.match_no, "#" + b.match_no)),
          h("td", { class: "num" }, b.board_no),
          h("td", { class: b.outcome === "win" ? "bot" : null }, team(b.team_a)),
          h("td", { class: b.outcome === "loss" ? "bot" : null }, team(b.team_b)),
          h("td", { class: "num" }, signed(b.margin)));
      }))));
    return c;
  }

  // The Elo and its interval on one axis shared by every row.
  function eloScale(rows, width, ref) {
    let lo = ref, hi = ref;
    rows.forEach(function (r) {
      [r.elo, r.ci_low, r.ci_high, r.more_than, r.less_than].forEach(function (v) {
        if (v !== null && v !== undefined) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      });
    });
    const pad = Math.max(20, (hi - lo) * 0.05);
    lo -= pad; hi += pad;
    return { lo: lo, hi: hi, ref: ref, x: function (v) { return 6 + (v - lo) / (hi - lo) * (width - 12); } };
  }
  function niceTicks(lo, hi, n) {
    const span = hi - lo, raw = span / n, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (st) { return span / st <= n; }) || 10 * mag;
    const out = [];
    for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) out.push(Math.round(v * 1e6) / 1e6);
    return out;
  }
  // A row's Elo (the dot) with its interval, or its one-sided bound as an open arrow; the dashed
  // line is what the intervals are about: the pool's mean (--errors pool) or the anchor's 0.
  function errorBar(r, sc, width) {
    const y = 10, g = s("svg", { class: "bar", width: width, height: 20, viewBox: "0 0 " + width + " 20", role: "img",
      "aria-label": "Elo " + elo(r.elo) + (r.more_than !== null ? ", more than " + elo(r.more_than) : r.less_than !== null
        ? ", less than " + elo(r.less_than) : r.ci_low !== null ? ", 95% interval " + elo(r.ci_low) + " to " + elo(r.ci_high) : "") });
    g.appendChild(s("line", { class: "zero", x1: sc.x(sc.ref), x2: sc.x(sc.ref), y1: 1, y2: 19 }));
    const span = function (a, b, capA, capB) {
      g.appendChild(s("line", { class: "ci", x1: a, x2: b, y1: y, y2: y }));
      if (capA) g.appendChild(s("line", { class: "cap", x1: a, x2: a, y1: y - 5, y2: y + 5 }));
      if (capB) g.appendChild(s("line", { class: "cap", x1: b, x2: b, y1: y - 5, y2: y + 5 }));
    };
    if (r.more_than !== null) {
      span(sc.x(r.more_than), width - 2, true, false);
      g.appendChild(s("path", { class: "arrow", d: "M" + (width - 8) + " " + (y - 4) + " L" + (width - 2) + " " + y + " L" + (width - 8) + " " + (y + 4) }));
    } else if (r.less_than !== null) {
      span(2, sc.x(r.less_than), false, true);
      g.appendChild(s("path", { class: "arrow", d: "M8 " + (y - 4) + " L2 " + y + " L8 " + (y + 4) }));
    } else if (r.ci_low !== null && r.ci_high !== null) {
      span(sc.x(r.ci_low), sc.x(r.ci_high), true, true);
    }
    g.appendChild(s("circle", { class: "dot", cx: sc.x(r.elo), cy: y, r: 4 }));
    return g;
  }
  function axis(sc, width) {
    const g = s("svg", { class: "bar", width: width, height: 16, viewBox: "0 0 " + width + " 16", "aria-hidden": "true" });
    niceTicks(sc.lo, sc.hi, 4).forEach(function (v) {
      g.appendChild(s("text", { x: sc.x(v), y: 12, "text-anchor": "middle" }, elo(v)));
    });
    return g;
  }

  // The standings as `arena standings` prints them: every cell's text comes from the server
  // (arena/results/present.py), so the page and the terminal cannot disagree.
  const WIDE_ONLY = { boards: 1, wins: 1, draws: 1, losses: 1, margin: 1, faults: 1, notes: 1 };
  function standingsCard(rows, table, t) {
    const c = card("Standings");
    const ref = table.errors === "pool" && table.pool_mean !== null ? table.pool_mean : 0;
    const W = 240, sc = eloScale(rows.filter(function (r) { return r.elo !== null; }), W, ref);
    const byId = {};
    rows.forEach(function (r) { byId[r.bot_id] = r; });
    const marginHead = (table.columns.find(function (col) { return col.key === "margin"; }) || {}).heading;  // chips/board for Zwicken
    const heads = [];
    table.columns.forEach(function (col) {
      heads.push(h("th", { class: (col.right ? "num" : "") + (WIDE_ONLY[col.key] ? " wide-only" : ""), "data-col": col.key,
        title: col.key === "los" ? "likelihood of superiority over the next bot down" : null }, col.heading));
      if (col.key === "interval") heads.push(h("th", { class: "wide-only bar-col" }, axis(sc, W)));
    });
    c.appendChild(h("table", { id: "standings", class: "standings" },
      h("thead", null, h("tr", null, heads)),
      h("tbody", null, table.rows.map(function (cells) {
        const r = byId[cells.bot_id];
        const tr = h("tr", { "data-bot": cells.bot, class: r.boards ? null : "unplayed" });
        table.columns.forEach(function (col) {
          const text = cells[col.key];
          const cls = (col.right ? "num" : "") + (WIDE_ONLY[col.key] ? " wide-only" : "") + (col.key === "bot" ? " bot" : "");
          let content = text;
          if (col.key === "bot") {
            content = [link("t=" + t.id + "&bot=" + r.bot_id, text),
              h("span", { class: "narrow-only sub" }, cells.boards + " boards · " + cells.wins + "-" + cells.draws + "-" + cells.losses +
                " · " + cells.margin + (marginHead === "margin" ? " a board" : " " + marginHead) + (r.faults ? " · " + cells.faults + " faults" : ""))];
          } else if (col.key === "faults" && r.fault_flag) {
            content = [text.replace(/ !$/, " "), h("span", { class: "badge fault", title: "faulted in more than 10% of its tables" }, "!")];
          }
          tr.appendChild(h("td", { class: cls, "data-col": col.key, "data-text": text }, content));
          if (col.key === "interval") tr.appendChild(h("td", { class: "wide-only bar-col" }, r.elo === null ? null : errorBar(r, sc, W)));
        });
        return tr;
      }))));
    const notes = h("div", { class: "notes", id: "standings-notes" });
    table.notes.forEach(function (line) { notes.appendChild(h("p", { class: "muted" }, line)); });
    notes.appendChild(h("p", { class: "muted wide-only" }, "Bars: the Elo (dot) and its interval or one-sided bound (arrow); " +
      "the dashed line: " + (table.errors === "pool" ? "the pool's mean, what the intervals are about." : "the anchor's 0.")));
    c.appendChild(notes);
    return c;
  }

  function heatColour(p) {
    // red (0) through pale grey (1/2) to green (1)
    const d = Math.min(1, Math.abs(p - 0.5) * 2);
    const hue = p < 0.5 ? 4 : 140;
    return "hsl(" + hue + ", " + Math.round(20 + 50 * d) + "%, " + Math.round(96 - 26 * d) + "%)";
  }

  function crosstableCard(ct, standings, t, unit) {
    const c = card("Crosstable");
    const ids = {};
    standings.forEach(function (r) { ids[r.bot] = r.bot_id; });
    const table = h("table", { class: "heat", id: "crosstable" },
      h("thead", null, h("tr", null, h("th", null, "#"), h("th", null, "Bot"),
        ct.bots.map(function (b, i) { return h("th", { class: "col", title: b }, h("span", { class: "colno" }, String(i + 1)), h("span", { class: "colname" }, b)); }))));
    const body = h("tbody");
    ct.rows.forEach(function (row, i) {
      const tr = h("tr", null, h("td", { class: "num" }, i + 1),
        h("td", { class: "bot" }, link("t=" + t.id + "&bot=" + ids[row.bot], row.bot)));
      ct.bots.forEach(function (other) {
        const cell = row.results[other];
        if (other === row.bot) { tr.appendChild(h("td", { class: "cell self" })); return; }
        if (!cell) { tr.appendChild(h("td", { class: "cell" }, h("span", { class: "muted" }, "·"))); return; }
        tr.appendChild(h("td", {
          class: "cell", style: "background:" + heatColour(cell.pct),
          title: row.bot + " v " + other + ": " + cell.wins + "-" + cell.draws + "-" + cell.losses + " in " + cell.boards +
            " boards, score " + pct(cell.pct) + " (95%: " + pct(cell.ci_low) + "–" + pct(cell.ci_high) + "), margin " + signed(cell.margin),
        }, h("span", { class: "pct" }, pct(cell.pct)),
          h("span", { class: "wdl" }, cell.wins + "-" + cell.draws + "-" + cell.losses),
          h("span", { class: "ci" }, Math.round(100 * cell.ci_low) + "–" + Math.round(100 * cell.ci_high))));
      });
      body.appendChild(tr);
    });
    table.appendChild(body);
    c.appendChild(table);
    c.appendChild(h("p", { class: "muted" }, unit
      ? "Each cell: the row bot's score against the column bot on the boards they shared a table (win 1, draw ½: more " + unit +
        " over the board's rooms), its W-D-L and the score's 95% interval (Wilson); hovering adds the boards and the margin (the " + unit + " between them)."
      : "Each cell: the row bot's score against the column bot (win 1, draw ½ per board), its W-D-L and the score's 95% interval (Wilson); hovering adds the boards and the margin."));
    return c;
  }

  const PALETTE = ["#2456a6", "#d1495b", "#2a9d8f", "#e9a23b", "#6a4c93", "#3d7d2e", "#c05299", "#1b98e0",
    "#8c564b", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e", "#9467bd", "#2ca02c", "#e377c2", "#393b79", "#637939",
    "#8c6d31", "#843c39"];

  function historyCard(hist) {
    const c = card("Elo as the boards came in");
    c.classList.add("chart");
    if (!hist.seq.length) {
      c.appendChild(h("p", { class: "muted" }, "No board has finished yet."));
      return c;
    }
    const W = 900, H = 300, L = 48, R = 12, T = 10, B = 28;
    let lo = Infinity, hi = -Infinity;
    hist.bots.forEach(function (b) { b.elo.forEach(function (e) { if (e !== null) { lo = Math.min(lo, e); hi = Math.max(hi, e); } }); });
    if (lo === hi) { lo -= 10; hi += 10; }
    const first = hist.seq[0], last = hist.seq[hist.seq.length - 1];
    const x = function (q) { return L + (last === first ? 0 : (q - first) / (last - first)) * (W - L - R); };
    const y = function (e) { return T + (hi - e) / (hi - lo) * (H - T - B); };
    const g = s("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "each bot's Elo fitted on the boards played so far", id: "history" });
    niceTicks(lo, hi, 6).forEach(function (v) {
      g.appendChild(s("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e3e6eb" }));
      g.appendChild(s("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end" }, elo(v)));
    });
    niceTicks(first, last, 8).filter(function (q) { return q === Math.round(q); }).forEach(function (q) {
      g.appendChild(s("text", { x: x(q), y: H - 8, "text-anchor": "middle" }, String(q)));
    });
    const legend = h("div", { class: "legend" });
    const order = hist.bots.slice().sort(function (a, b) { return (b.elo[b.elo.length - 1] || 0) - (a.elo[a.elo.length - 1] || 0); });
    order.forEach(function (b, i) {
      const colour = PALETTE[i % PALETTE.length];
      const pts = b.elo.map(function (e, k) { return e === null ? null : x(hist.seq[k]).toFixed(1) + "," + y(e).toFixed(1); })
        .filter(function (p) { return p !== null; }).join(" ");
      g.appendChild(s("polyline", { points: pts, fill: "none", stroke: colour, "stroke-width": 2, "stroke-linejoin": "round" },
        s("title", null, b.bot)));
      legend.appendChild(h("span", null, h("span", { class: "swatch", style: "background:" + colour }), b.bot));
    });
    c.appendChild(g);
    c.appendChild(legend);
    c.appendChild(h("p", { class: "muted" }, "The headline fit (same prior, anchor and scale) on the first boards at each point, " +
      "in the order they are stored (match, board): it ends on the standings' Elo, and its path depends on that order. " +
      hist.boards + " boards" + (hist.computed ? " so far, as the tournament plays." : ".")));
    return c;
  }

  function matchState(m) {
    if (m.playing) return badge("in play", "running");
    if (m.boards_done === m.boards) return badge("done", "finished");
    return m.tables_done ? badge("stopped", "interrupted") : h("span", { class: "muted" }, "to play");
  }
  // Entrants with their results (chips or points) and, if given, the others each beat; the
  // best result in bold.
  function entrantList(names, results, scores, t, ids) {
    const top = Math.max.apply(null, results);
    return h("ul", { class: "entrants-list" }, names.map(function (name, e) {
      return h("li", { "data-entrant": e }, h("span", { class: results[e] === top ? "bot" : null },
        ids && ids[name] !== undefined ? link("t=" + t.id + "&bot=" + ids[name], name) : name),
        h("span", { class: "num", "data-result": results[e] }, chips(results[e])),
        scores ? h("span", { class: "muted" }, " · beat " + scores[e]) : null);
    }));
  }
  // Matches of k entrants: each one's result over the boards done; `bot`: its own record.
  function entrantMatchesTable(matches, t, id, bot) {
    return h("table", { id: id || "matches", class: "matches" },
      h("thead", null, h("tr", null, h("th", { class: "num" }, "#"), h("th", null, "Entrants: chips, others beaten"),
        h("th", { class: "wide-only" }, ""), h("th", { class: "num" }, "Boards"),
        bot ? h("th", { class: "num" }, "W-D-L (" + bot + ")") : null, h("th", { class: "num wide-only" }, "Faults"))),
      h("tbody", null, matches.map(function (m) {
        return h("tr", { class: m.playing ? "playing" : null, "data-match": m.match_no },
          h("td", { class: "num" }, link("t=" + t.id + "&match=" + m.match_no, "#" + m.match_no)),
          h("td", null, entrantList(m.entrants, m.results, m.scores, t)),
          h("td", { class: "wide-only" }, matchState(m)),
          h("td", { class: "num" }, m.boards_done + " / " + m.boards, m.playing ? h("span", { class: "narrow-only sub" }, "in play") : null),
          bot ? h("td", { class: "num" }, m.bot ? m.bot.wins + "-" + m.bot.draws + "-" + m.bot.losses : "") : null,
          h("td", { class: "num wide-only" }, m.faults || ""));
      })));
  }
  // `bot`: the W-D-L and margin from that bot's side (team B's are team A's turned around).
  function matchesTable(matches, t, id, bot) {
    if (matches.length && matches[0].entrants) return entrantMatchesTable(matches, t, id, bot);
    return h("table", { id: id || "matches", class: "matches" },
      h("thead", null, h("tr", null, h("th", { class: "num" }, "#"), h("th", null, "Team A"), h("th", null, "Team B"),
        h("th", { class: "wide-only" }, ""), h("th", { class: "num" }, "Boards"), h("th", { class: "num" }, bot ? "W-D-L (" + bot + ")" : "W-D-L (A)"),
        h("th", { class: "num" }, bot ? "Margin" : "Margin A"), h("th", { class: "num wide-only" }, "Faults"))),
      h("tbody", null, matches.map(function (m) {
        const flip = bot && m.team_a.indexOf(bot) < 0;
        return h("tr", { class: m.playing ? "playing" : null, "data-match": m.match_no },
          h("td", { class: "num" }, link("t=" + t.id + "&match=" + m.match_no, "#" + m.match_no)),
          h("td", null, team(m.team_a)), h("td", null, team(m.team_b)),
          h("td", { class: "wide-only" }, matchState(m)),
          h("td", { class: "num" }, m.boards_done + " / " + m.boards, m.playing ? h("span", { class: "narrow-only sub" }, "in play") : null,
            m.playing && m.boards_started > m.boards_done ? h("div", { class: "sub" }, "+" + (m.boards_started - m.boards_done) + " in one room") : null),
          h("td", { class: "num" }, flip ? m.losses + "-" + m.draws + "-" + m.wins : m.wins + "-" + m.draws + "-" + m.losses),
          h("td", { class: "num" }, signed(flip ? -m.margin : m.margin)),
          h("td", { class: "num wide-only" }, m.faults || ""));
      })));
  }

  // The matches being played now, with what is stored of each and its newest deal to watch.
  function playingCard(playing, live, t) {
    const c = card("In play now");
    c.id = "in-play";
    c.appendChild(h("ul", { class: "playing" }, playing.map(function (m) {
      return h("li", { "data-match": m.match_no },
        link("t=" + t.id + "&match=" + m.match_no, "Match " + m.match_no), ": ",
        m.entrants ? m.entrants.join(" v ") : [team(m.team_a), " v ", team(m.team_b)], " · ",
        h("span", { class: "num" }, m.boards_done + " of " + m.boards + " boards stored"),
        (m.live_rooms || []).map(function (room) {
          return [" · ", link("live=" + t.id + "-" + m.match_no + "-" + roomName(Number(room)), "watch the " + roomName(Number(room)) + " room")];
        }),
        m.latest_deal ? [" · ", link("deal=" + m.latest_deal + "&follow=" + t.id + "-" + m.match_no, "newest stored deal")] : null);
    })));
    c.appendChild(h("p", { class: "muted" }, "Watch a room: its table as it plays, the public view only (hands are never shown while a deal is played)."));
    return c;
  }

  function matchesCard(matches, t) {
    const c = card("Matches");
    if (matches.length <= 40) { c.appendChild(matchesTable(matches, t)); return c; }
    const done = matches.filter(function (m) { return m.boards_done === m.boards; }).length;
    c.appendChild(h("details", null, h("summary", null, "All " + matches.length + " matches (" + done + " finished)"),
      matchesTable(matches, t)));
    return c;
  }

  // ---- a bot ------------------------------------------------------------------------------
  function botPage(data) {
    const t = data.tournament, b = data.bot, r = data.standing;
    setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], [null, b.label]]);
    document.title = b.label + " · " + t.name + " · Zwicker Arena";
    main.appendChild(h("div", { class: "page-head" }, h("h1", { id: "bot-name" }, b.label),
      h("span", { class: "muted" }, "version " + b.version + " · " + b.kind + " · sha256 " + b.sha256.slice(0, 12))));

    const grid = h("div", { class: "grid2" });
    const sum = card("In " + t.name);
    const dl = h("dl", { class: "settings" });
    const cells = data.standing_cells, heading = {};
    data.standing_columns.forEach(function (col) { heading[col.key] = col.heading; });
    [["Rank", cells.rank + " of " + t.bots, "rank"], ["Elo", cells.elo, "elo"], [heading.interval, cells.interval, "interval"],
      ["LOS over the next", cells.los, "los"], ["Boards", cells.boards, "boards"],
      ["W-D-L", cells.wins + "-" + cells.draws + "-" + cells.losses, "wdl"],
      [heading.margin === "margin" ? "Margin per board" : heading.margin, cells.margin, "margin"],
      ["Faults", r.faults + " of " + r.tables + " tables" + (r.fault_flag ? " (more than 10%)" : ""), "faults"]]
      .forEach(function (x) { dl.appendChild(h("dt", null, x[0])); dl.appendChild(h("dd", { "data-col": x[2] }, x[1])); });
    sum.appendChild(dl);
    data.standing_notes.forEach(function (line) { sum.appendChild(h("p", { class: "muted small" }, line)); });
    grid.appendChild(sum);
    const said = card("Announced itself as");
    if (!data.announced.length) said.appendChild(h("p", { class: "muted" }, "It has not played yet."));
    data.announced.forEach(function (a) {
      said.appendChild(h("p", { class: "announced" }, h("span", { class: "says" }, a.name === null ? "(nothing)" : a.name),
        " version ", h("span", { class: "says" }, a.version === null ? "(nothing)" : a.version),
        h("span", { class: "muted" }, "  at " + a.seats + " seats")));
    });
    said.appendChild(h("p", { class: "muted" }, "Registered from " + (b.file || "(unknown)") + " on " + when(b.added) + "."));
    grid.appendChild(said);
    main.appendChild(grid);

    const opp = card("Results per opponent");
    opp.appendChild(h("table", { id: "opponents" },
      h("thead", null, h("tr", null, h("th", null, "Opponent"), h("th", { class: "num" }, "Boards"), h("th", { class: "num" }, "W-D-L"),
        h("th", { class: "num" }, "Score"), h("th", { class: "wide-only" }, scoreAxis(200)), h("th", { class: "num" }, "Margin"))),
      h("tbody", null, data.opponents.map(function (o) {
        const W = 200, g = s("svg", { class: "bar", width: W, height: 20, viewBox: "0 0 " + W + " 20" });
        const x = function (p) { return 6 + p * (W - 12); };
        g.appendChild(s("line", { class: "zero", x1: x(0.5), x2: x(0.5), y1: 1, y2: 19 }));
        g.appendChild(s("line", { class: "ci", x1: x(o.ci_low), x2: x(o.ci_high), y1: 10, y2: 10 }));
        g.appendChild(s("circle", { class: "dot", cx: x(o.pct), cy: 10, r: 4 }));
        return h("tr", null, h("td", { class: "bot" }, link("t=" + t.id + "&bot=" + o.bot_id, o.bot)),
          h("td", { class: "num" }, o.boards), h("td", { class: "num" }, o.wins + "-" + o.draws + "-" + o.losses),
          h("td", { class: "num" }, pct(o.pct), h("span", { class: "narrow-only sub" }, pct(o.ci_low) + "–" + pct(o.ci_high))),
          h("td", { class: "wide-only" }, g), h("td", { class: "num" }, signed(o.margin)));
      }))));
    main.appendChild(opp);

    const mc = card("Matches");
    mc.appendChild(matchesTable(data.matches, t, "bot-matches", b.label));
    main.appendChild(mc);
    main.appendChild(botHistoryCard(data.history, t));

    const fc = card("Faults");
    fc.id = "faults";
    if (!data.faults.length) fc.appendChild(h("p", { class: "muted" }, "No faults."));
    if (data.fault_count > data.faults.length)
      fc.appendChild(h("p", { class: "muted" }, "The first " + data.faults.length + " of " + data.fault_count + " faults:"));
    data.faults.forEach(function (f) {
      const last = f.deal_ids[f.deal_ids.length - 1];
      fc.appendChild(h("div", { class: "fault" },
        h("div", null, badge(f.status, "fault"), " ",
          link("t=" + t.id + "&match=" + f.match_no, "match " + f.match_no), ", board " + f.board_no +
          (t.partnerships === false ? ", " + roomName(f.room) + " room" : f.swapped ? " (sides swapped)" : "") + ", seat " + f.seat + ": ",
          h("span", { class: "detail" }, f.detail),
          last !== undefined ? h("span", null, " · ", link("deal=" + last + "&seat=" + f.seat, "replay where it stopped")) : null),
        f.stderr ? h("pre", { class: "stderr" }, (f.stderr_cut ? "…" : "") + f.stderr)
          : h("p", { class: "muted" }, f.stderr_private ? "(its stderr is its author's: a league's, not shown)" : "(nothing on stderr)")));
    });
    main.appendChild(fc);
  }

  function scoreAxis(W) {
    const g = s("svg", { class: "bar", width: W, height: 26, viewBox: "0 0 " + W + " 26", "aria-hidden": "true" });
    g.appendChild(s("text", { x: W / 2, y: 10, "text-anchor": "middle" }, "score, 95% interval"));
    [[0, "0%", "start"], [0.5, "50%", "middle"], [1, "100%", "end"]].forEach(function (q) {
      g.appendChild(s("text", { x: 6 + q[0] * (W - 12), y: 23, "text-anchor": q[2] }, q[1]));
    });
    return g;
  }

  // The bot's Elo and rank in every tournament with stored ratings (each on its own scale).
  function botHistoryCard(hist, t) {
    const c = card("Across tournaments");
    c.id = "bot-history";
    if (!hist.length) { c.appendChild(h("p", { class: "muted" }, "No finished tournament has rated it yet.")); return c; }
    if (hist.length > 1) {
      const W = 600, H = 120, L = 40, R = 10, T = 10, B = 20;
      let lo = Infinity, hi = -Infinity;
      hist.forEach(function (x) { lo = Math.min(lo, x.elo); hi = Math.max(hi, x.elo); });
      if (hi - lo < 20) { lo -= 10; hi += 10; }
      const X = function (i) { return L + i / (hist.length - 1) * (W - L - R); };
      const Y = function (v) { return T + (hi - v) / (hi - lo) * (H - T - B); };
      const g = s("svg", { viewBox: "0 0 " + W + " " + H, role: "img", "aria-label": "Elo in each tournament" });
      niceTicks(lo, hi, 3).forEach(function (v) {
        g.appendChild(s("line", { x1: L, x2: W - R, y1: Y(v), y2: Y(v), stroke: "#eef0f3" }));
        g.appendChild(s("text", { x: L - 4, y: Y(v) + 4, "text-anchor": "end" }, elo(v)));
      });
      g.appendChild(s("polyline", { points: hist.map(function (x, i) { return X(i).toFixed(1) + "," + Y(x.elo).toFixed(1); }).join(" "),
        fill: "none", stroke: "#2456a6", "stroke-width": 2 }));
      hist.forEach(function (x, i) { g.appendChild(s("circle", { cx: X(i), cy: Y(x.elo), r: 3.5, fill: "#2456a6" }, s("title", null, x.tournament))); });
      c.appendChild(h("div", { class: "chart" }, g));
    }
    c.appendChild(h("table", { id: "bot-tournaments" },
      h("thead", null, h("tr", null, h("th", null, "Tournament"), h("th", { class: "num" }, "Elo"), h("th", { class: "num" }, "Rank"),
        h("th", { class: "wide-only" }, "Created"))),
      h("tbody", null, hist.map(function (x) {
        return h("tr", null, h("td", null, MODE === "api" || x.tournament_id === t.id ? link("t=" + x.tournament_id, x.tournament) : x.tournament),
          h("td", { class: "num" }, elo(x.elo)), h("td", { class: "num" }, x.rank + " of " + x.of),
          h("td", { class: "muted wide-only" }, when(x.created)));
      }))));
    c.appendChild(h("p", { class: "muted" }, "Each tournament has its own scale: 0 is its random bot, or its mean."));
    return c;
  }

  // ---- a match ------------------------------------------------------------------------------
  function matchPage(data) {
    if (data.match.entrants) return entrantMatchPage(data);
    const t = data.tournament, m = data.match;
    setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], [null, "match " + m.match_no]]);
    document.title = "Match " + m.match_no + " · " + t.name + " · Zwicker Arena";
    const who = function (names) {
      return Array.from(new Set(names)).map(function (n, i) {
        return [i ? " + " : "", data.bot_ids[n] !== undefined ? link("t=" + t.id + "&bot=" + data.bot_ids[n], n) : n];
      });
    };
    main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Match " + m.match_no),
      h("span", null, who(m.team_a), " (A) v ", who(m.team_b), " (B)"),
      h("span", { class: "muted" },
        m.match_no > 1 ? link("t=" + t.id + "&match=" + (m.match_no - 1), "← previous") : null,
        m.match_no < t.matches ? [" ", link("t=" + t.id + "&match=" + (m.match_no + 1), "next →")] : null)));
    const c = card("Boards");
    const body = h("tbody");
    let total = 0;
    m.boards.forEach(function (b) {
      if (b.margin !== null) total += b.margin;
      b.tables.forEach(function (tb, k) {
        body.appendChild(h("tr", null,
          k === 0 ? h("td", { class: "num", rowspan: b.tables.length }, b.board_no) : null,
          k === 0 ? h("td", { class: "mono muted wide-only", rowspan: b.tables.length }, b.seed) : null,
          h("td", null, h("span", { class: "wide-only" }, tb.swapped ? "B holds side 0" : "A holds side 0"),
            h("span", { class: "narrow-only" }, tb.swapped ? "B: side 0" : "A: side 0")),
          h("td", { class: "wide-only" }, tb.seats.join(", ")),
          h("td", { class: "num" }, (tb.swapped ? [tb.points[1], tb.points[0]] : tb.points).join(" – ")),
          k === 0 ? h("td", { class: "num", rowspan: b.tables.length }, b.margin === null ? "…" : signed(b.margin)) : null,
          k === 0 ? h("td", { class: "wide-only", rowspan: b.tables.length }, b.outcome || "playing") : null,
          h("td", null, tb.faults.map(function (f) { return h("div", null, badge(f.status, "fault"), " seat " + f.seat + ": ", f.detail); })),
          h("td", null, tb.deal_ids.map(function (d, i) { return [i ? " " : "", link("deal=" + d, "deal " + d)]; }))));
      });
    });
    c.appendChild(h("table", { id: "boards" },
      h("thead", null, h("tr", null, ["Board", "Seed", "Table", "Seats 0–" + (m.boards.length && m.boards[0].tables[0] ? m.boards[0].tables[0].seats.length - 1 : 3),
        "Points (A – B)", "Margin A", "Result A", "Faults", "Replay"].map(function (x, i) { return h("th", { class: i === 1 || i === 3 || i === 6 ? "wide-only" : null }, x); }))),
      body));
    c.appendChild(h("p", { class: "muted" }, "Team A's margin over the match: " + signed(total) + "."));
    main.appendChild(c);
  }

  // A match of k entrants: each board in its k rooms, each room's seats with the chips (or
  // points) each seat won there, and the board's result per entrant over the rooms.
  function entrantMatchPage(data) {
    const t = data.tournament, m = data.match, k = m.entrants.length;
    setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], [null, "match " + m.match_no]]);
    document.title = "Match " + m.match_no + " · " + t.name + " · Zwicker Arena";
    const totals = m.entrants.map(function () { return 0; }), beaten = totals.slice();
    m.boards.forEach(function (b) {
      (b.results || []).forEach(function (x, e) { totals[e] += x; beaten[e] += b.scores[e]; });
    });
    main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Match " + m.match_no),
      h("span", null, k + " entrants, one bot a seat"),
      h("span", { class: "muted" },
        m.match_no > 1 ? link("t=" + t.id + "&match=" + (m.match_no - 1), "← previous") : null,
        m.match_no < t.matches ? [" ", link("t=" + t.id + "&match=" + (m.match_no + 1), "next →")] : null)));
    const sum = card("Entrants over the boards finished");
    sum.id = "entrants";
    sum.appendChild(entrantList(m.entrants, totals, beaten, t, data.bot_ids));
    sum.appendChild(h("p", { class: "muted" }, "Chips over the finished boards, each board's over its " + k + " rooms; " +
      "beat: the others each entrant won more chips than on a board (a tie counts half)."));
    main.appendChild(sum);
    const c = card("Boards");
    const body = h("tbody");
    m.boards.forEach(function (b) {
      b.tables.forEach(function (tb, i) {
        const seats = h("ol", { class: "entrants-list seats-list", start: 0 }, tb.seats.map(function (bot, seat) {
          return h("li", { "data-seat": seat }, h("span", { class: "muted" }, seat + " "), bot,
            h("span", { class: "num", "data-points": tb.points[seat] }, chips(tb.points[seat])));
        }));
        body.appendChild(h("tr", { "data-board": b.board_no, "data-room": tb.room },
          i === 0 ? h("td", { class: "num", rowspan: b.tables.length, "data-label": "Board " }, b.board_no) : null,
          i === 0 ? h("td", { class: "mono muted wide-only", rowspan: b.tables.length }, b.seed) : null,
          h("td", { "data-label": "Room " }, roomName(tb.room)),
          h("td", null, seats),
          i === 0 ? h("td", { rowspan: b.tables.length, "data-col": "results", "data-label": "Board " + b.board_no + " over its rooms" },
            b.results ? entrantList(m.entrants, b.results, b.scores, t) : "playing") : null,
          h("td", null, tb.faults.map(function (f) { return h("div", null, badge(f.status, "fault"), " seat " + f.seat + ": ", f.detail); }),
            tb.deal_ids.length ? h("div", { class: "deal-links" }, "deals ", tb.deal_ids.map(function (d, j) { return [j ? " " : "", link("deal=" + d, String(j + 1))]; })) : null)));
      });
    });
    c.appendChild(h("table", { id: "boards", class: "entrant-boards" },
      h("thead", null, h("tr", null, ["Board", "Seed", "Room", "Seats: chips won there", "Board: chips, others beaten", "Replay"]
        .map(function (x, i) { return h("th", { class: i === 1 ? "wide-only" : null }, x); }))), body));
    c.appendChild(h("p", { class: "muted" }, "Room r seats entrant (seat − r) mod " + k + ": over a board's rooms every entrant holds every seat once. " +
      "Replay: the room's attempts (deals) in order."));
    main.appendChild(c);
  }

  // ---- cards ----------------------------------------------------------------------------
  const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
  function cardEl(code, opts) {
    opts = opts || {};
    if (code === null) return h("span", { class: "cardface back" + (opts.small ? " small" : ""), title: "a hidden card" });
    let rank, suit, cls;
    if (code[0] === "X") {
      rank = code === "XW" ? "W" : code.slice(1); suit = "\u2605"; cls = "joker";
    } else {
      rank = code[0] === "T" ? "10" : code[0]; suit = SUITS[code[1]] || "?"; cls = code[1] === "D" || code[1] === "H" ? "red" : "black";
    }
    return h("span", { class: "cardface " + cls + (opts.small ? " small" : "") + (opts.fresh ? " new" : ""),
      title: code, "data-card": code }, h("span", { class: "r" }, rank), h("span", { class: "s" }, suit));
  }

  // The replay's controls, shared by every game's viewer: the steps, play, the slider, a move
  // number, and the view of all hands or one seat's; `update` shows the current step.
  function stepControls(d, state, n, mine, go, draw) {
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
        if (current !== mine || state.step >= n) return toggle(true);
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

  // ---- the replay viewer ------------------------------------------------------------------
  function replayPage(d, r) {
    if (d.game === "zwicken") return zwickenReplay(d, r);
    const n = d.frames.length - 1, mine = current;
    const state = { step: clampStep(r.step, n), seat: parseSeat(r.seat, d.players) };
    setCrumbs([["", "Tournaments"], ["t=" + d.tournament_id, d.tournament],
      ["t=" + d.tournament_id + "&match=" + d.match, "match " + d.match], [null, "deal " + d.deal_id]]);
    document.title = "Deal " + d.deal_id + " · " + d.tournament + " · Zwicker Arena";
    const sides = d.sides, sideOf = function (seat) { return d.seat_sides[seat]; };  // the variant's layout

    main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Deal " + d.deal_id),
      h("span", { class: "muted" }, "match " + d.match + ", board " + d.board + (d.swapped ? " (sides swapped)" : "") +
        (d.number ? ", deal " + (d.number + 1) + " of the game" : "") + " · " + d.variant + " · seed " + d.seed + " · dealer seat " + d.dealer)));

    const seatsCard = h("section", { class: "card" }, h("h2", null, "Seats"), h("table", { id: "seats" },
      h("thead", null, h("tr", null, ["Seat", "Side", "Bot", "Announced itself as", "Ended"].map(function (x) { return h("th", null, x); }))),
      h("tbody", null, d.seats.map(function (q) {
        return h("tr", null, h("td", { class: "num" }, q.seat), h("td", { class: "num" }, sideOf(q.seat)),
          h("td", { class: "bot" }, q.bot), h("td", null, h("span", { class: "says" }, q.says)),
          h("td", null, q.status === "ok" ? "ok" : [badge(q.status, "fault"), " ", q.detail]));
      }))));

    const ctl = stepControls(d, state, n, mine, go, draw);
    const controls = ctl.controls, toggle = ctl.toggle;
    const layout = h("div", { class: "replay" });
    const felt = h("div", { class: "felt" + (d.players === 4 ? "" : " ring"), id: "felt" });
    const score = h("div", { id: "score" });
    layout.appendChild(h("section", { class: "card felt-card" }, controls, felt,
      h("p", { class: "keys" }, h("kbd", null, "\u2190"), " ", h("kbd", null, "\u2192"), " step, ",
        h("kbd", null, "space"), " play or pause, ",
        h("kbd", null, "Home"), " ", h("kbd", null, "End"), " first and last; the address names the deal, view and move, to share.")));
    score.classList.add("score-area");
    seatsCard.classList.add("seats-card");
    const list = h("ol", { class: "moves", id: "movelist" });
    list.appendChild(h("li", { "data-step": 0, onclick: function () { go(0); } }, h("span", { class: "n" }, "0"), h("span", null, "the deal")));
    d.frames.slice(1).forEach(function (f, i) {
      list.appendChild(h("li", { "data-step": i + 1, onclick: function () { go(i + 1); } },
        h("span", { class: "n" }, String(i + 1)), h("span", { class: "s" }, "S" + f.move.seat),
        h("span", { class: "mono" }, f.move.text), f.move.zwick ? badge("zwick", "zwick") : null,
        f.move.sum ? h("span", { class: "muted sum" }, f.move.sum) : null));
    });
    layout.appendChild(h("section", { class: "card moves-card" }, h("h2", null, "Moves"), list));
    layout.appendChild(score);
    layout.appendChild(seatsCard);
    main.appendChild(layout);

    const POS = { 0: "south", 1: "west", 2: "north", 3: "east" };
    function seatName(seat) {
      const x = d.seats.find(function (q) { return q.seat === seat; });
      return x ? x.bot : "?";
    }
    function hand(seat, f, fresh) {
      const shown = state.seat === null || state.seat === seat;
      const cards = f.hands[seat];
      const box = h("div", { class: "seat" + (f.to_move === seat ? " tomove" : ""), "data-seat": seat });
      if (d.players === 4) {
        const rot = state.seat === null ? 0 : state.seat;
        box.classList.add("pos-" + POS[(seat - rot + 4) % 4]);
      }
      const info = d.seats.find(function (q) { return q.seat === seat; }) || {};
      box.appendChild(h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, seatName(seat)),
        h("span", { class: "muted" }, sides === d.players ? "" : "side " + sideOf(seat)),
        seat === d.dealer ? badge("dealer", "") : null,
        info.status && info.status !== "ok" ? badge(info.status, "fault") : null,
        f.to_move === seat ? badge("to move", "running") : null));
      const row = h("div", { class: "hand" });
      if (!cards.length) row.appendChild(h("div", { class: "empty" }, "no cards"));
      cards.forEach(function (c) { row.appendChild(shown ? cardEl(c) : cardEl(null)); });
      box.appendChild(row);
      return box;
    }
    function unitEl(u, i, fresh) {
      if (typeof u === "string")
        return h("div", { class: "unit", "data-unit": i }, h("span", { class: "idx" }, String(i)), cardEl(u, { fresh: fresh }));
      return h("div", { class: "unit build", "data-unit": i }, h("span", { class: "idx" }, String(i)),
        h("div", { class: "pile" }, u.build.map(function (c, k) { return cardEl(c, { fresh: fresh && k === u.build.length - 1 }); })),
        h("span", { class: "tag", title: "a build of " + u.value + ", last built by seat " + u.by }, "= " + u.value + " · seat " + u.by));
    }
    function moveText(f) {
      const m = f.move;
      const who = "Move " + state.step + ": seat " + m.seat + " (" + seatName(m.seat) + ") ";
      const out = h("div", { class: "lastmove", id: "lastmove" });
      if (m.type === "capture") {
        out.appendChild(document.createTextNode(who + "captures "));
        m.took.forEach(function (cards) { cards.forEach(function (c) { out.appendChild(cardEl(c, { small: true })); }); });
        out.appendChild(document.createTextNode(" with "));
        out.appendChild(cardEl(m.card, { small: true }));
        if (m.value !== null) out.appendChild(document.createTextNode(" at " + m.value));
      } else if (m.type === "build") {
        out.appendChild(document.createTextNode(who + "builds "));
        out.appendChild(cardEl(m.card, { small: true }));
        out.appendChild(document.createTextNode(" onto "));
        (m.onto_cards || []).forEach(function (c) { out.appendChild(cardEl(c, { small: true })); });
        out.appendChild(document.createTextNode(" announcing " + m.value));
        if (m.sum) out.appendChild(h("span", { class: "sum", title: "the build's value: the unit's, then the card's" }, " (" + m.sum + ")"));
      } else {
        out.appendChild(document.createTextNode(who + "trails "));
        out.appendChild(cardEl(m.card, { small: true }));
      }
      out.appendChild(h("span", { class: "muted" }, "  " + m.text + (m.ms !== null && m.ms !== undefined ? " · " + (m.ms < 1 ? m.ms.toFixed(2) : m.ms.toFixed(1)) + " ms" : "")));
      if (m.zwick) { out.appendChild(document.createTextNode(" ")); out.appendChild(badge("Zwick!", "zwick")); }
      if (m.leftovers) out.appendChild(h("div", { class: "muted" }, "The deal is over: the " + m.leftovers +
        (m.leftovers === 1 ? " card" : " cards") + " left on the table go to side " + m.leftovers_to + ", the last to capture."));
      return out;
    }

    function draw() {
      const f = d.frames[state.step];
      ctl.update();
      clear(felt);
      for (let seat = 0; seat < d.players; seat++) felt.appendChild(hand(seat, f));
      const center = h("div", { class: "center" });
      const fresh = f.move && f.move.type !== "capture";
      const units = h("div", { class: "units", id: "table-units" });
      if (!f.table.length) units.appendChild(h("div", { class: "empty muted" }, "The table is empty."));
      f.table.forEach(function (u, i) {
        const isNew = fresh && (f.move.type === "trail" ? i === f.table.length - 1 : i === f.move.onto);
        units.appendChild(unitEl(u, i, isNew));
      });
      center.appendChild(h("div", { class: "tableinfo" },
        h("span", null, "Stock: " + f.stock),
        h("span", null, "Taken: " + f.taken.map(function (x, i) { return "side " + i + " " + x; }).join(", ")),
        h("span", null, "Zwicks: " + f.zwicks.map(function (x, i) { return "side " + i + " " + x; }).join(", ")),
        f.points ? h("span", { id: "running-score", title: "card points and Zwick points taken so far; the most-cards bonus comes at the end" },
          "Points so far: " + f.points.map(function (x, i) { return "side " + i + " " + x; }).join(", ")) : null));
      center.appendChild(units);
      if (f.move) center.appendChild(moveText(f));
      else center.appendChild(h("div", { class: "lastmove", id: "lastmove" }, "The deal as dealt: seat " + f.to_move + " (" + seatName(f.to_move) + ") plays first."));
      felt.appendChild(center);
      markStep(list, state.step);
      drawScore(state.step === n);
      stepHash(d, state, r);
    }

    function drawScore(atEnd) {
      clear(score);
      if (!atEnd) return;
      const c = card("Score");
      c.id = "breakdown";
      if (d.breakdown) {
        const body = h("tbody");
        d.breakdown.forEach(function (side, i) {
          const seats = [];
          for (let q = 0; q < d.players; q++) if (sideOf(q) === i) seats.push(seatName(q));
          body.appendChild(h("tr", null, h("td", { class: "bot" }, "Side " + i), h("td", null, Array.from(new Set(seats)).join(", ")),
            h("td", { class: "num" }, side.cards),
            h("td", null, side.point_cards.map(function (pc) { return h("span", { title: pc[0] + ": " + pc[1] }, cardEl(pc[0], { small: true })); })),
            h("td", { class: "num" }, side.card_points), h("td", { class: "num" }, side.most_cards),
            h("td", { class: "num" }, side.zwicks + " (" + side.zwick_points + ")"),
            h("td", { class: "num bot" }, side.total)));
        });
        c.appendChild(h("table", { class: "breakdown" },
          h("thead", null, h("tr", null, ["Side", "Bots", "Cards", "Point cards", "Card points", "Most cards", "Zwicks (points)", "Total"]
            .map(function (x, k) { return h("th", { class: k === 2 || k > 3 ? "num" : null }, x); }))), body));
      } else {
        c.appendChild(h("p", null, "The deal stopped here."));
      }
      if (d.forfeit) {
        c.appendChild(h("p", { class: "error" }, "Seat " + d.forfeit.seat + " faulted (" + d.forfeit.status + ": ",
          h("span", null, d.forfeit.detail || ""), "); side " + d.forfeit.side + " forfeits the table."));
      }
      if (d.points) c.appendChild(h("p", { class: "muted" }, "Stored points: " + d.points.join(" – ") + "."));
      score.appendChild(c);
    }

    function go(k) {
      state.step = Math.max(0, Math.min(n, k | 0));
      draw();
    }
    replayKeys(d, state, n, go, toggle, draw, r);
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
  // A viewer's keys, its step from the address, and a followed match's newest deal playing.
  function replayKeys(d, state, n, go, toggle, draw, r) {
    current.fromHash = function (r2) {
      state.step = clampStep(r2.step, n);
      state.seat = parseSeat(r2.seat, d.players);
      draw();
    };
    current.onKey = function (e) {
      if (e.target && e.target.tagName === "INPUT") return;  // the number box and the slider have their own keys
      if (e.key === "ArrowRight") { go(state.step + 1); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { go(state.step - 1); e.preventDefault(); }
      else if (e.key === "Home") { go(0); e.preventDefault(); }
      else if (e.key === "End") { go(n); e.preventDefault(); }
      else if (e.key === " ") { toggle(); e.preventDefault(); }
    };
    draw();
    if (r.follow) {
      main.insertBefore(h("p", { class: "card following", id: "following" }, "Following match " + r.follow.split("-")[1] +
        ": this is its newest stored deal; the next one opens and plays when it is stored. ",
        link("t=" + r.follow.split("-")[0] + "&match=" + r.follow.split("-")[1], "the match")), main.firstChild.nextSibling);
      if (r.autoplay || state.step === 0) toggle();
    }
  }

  // ---- Zwicken ------------------------------------------------------------------------------
  // A Zwicken card: rank (A K O U 10 9 8 7) and the German suit, drawn with the French pip it
  // stands for (Eichel ♣, Gras ♠, Herz ♥, Schellen ♦) in its own colour; the Welli is 7S.
  const ZW_SUITS = { E: ["\u2663", "Eichel"], G: ["\u2660", "Gras"], H: ["\u2665", "Herz"], S: ["\u2666", "Schellen"] };
  const ZW_RANKS = { A: "Sau", K: "König", O: "Ober", U: "Unter", T: "10" };
  function zwCard(code, opts) {
    opts = opts || {};
    if (code === null) return cardEl(null, opts);
    const suit = ZW_SUITS[code[1]] || ["?", "?"], rank = code[0] === "T" ? "10" : code[0];
    const name = code === "7S" ? "the Welli (Schellen-7)" : suit[1] + "-" + (ZW_RANKS[code[0]] || code[0]);
    return h("span", { class: "cardface zw zw-" + code[1] + (opts.small ? " small" : "") + (opts.fresh ? " new" : ""),
      title: name + " (" + code + ")", "data-card": code }, h("span", { class: "r" }, rank + (code === "7S" ? "W" : "")),
      h("span", { class: "s" }, suit[0]));
  }
  function suitName(s) { return s && ZW_SUITS[s] ? ZW_SUITS[s][1] : "–"; }
  function roomName(room) { return room === 0 ? "straight" : room === 1 ? "swapped" : "room" + room; }  // live.room_label
  function chips(x) { return x === null || x === undefined ? "–" : signed(x); }

  // What a Zwicken move did, from the frames before and after it: the trump choice with its
  // card, a decision, a card and, when it completed a trick, the trick and its winner.
  function zwMove(before, f) {
    const m = f.move, out = { text: m.text, trick: null, winner: null };
    if (m.type === "trump") {
      out.text = m.method === "schlecken" ? "Schlecken: turns up " : "Titschen: shows ";
      out.card = m.method === "schlecken" ? f.turned : f.exposed;
      out.after = ", trumps " + suitName(f.trump);
    } else if (m.type === "play" || m.type === "pass") {
      out.text = m.type === "play" ? "plays" : "passes";
    } else {
      out.text = "plays ";
      out.card = m.card;
      if (!f.trick.length) {  // the trick is complete: the seat whose count went up took it
        out.trick = before.trick.concat([[m.seat, m.card]]);
        out.winner = f.tricks.findIndex(function (x, i) { return x > before.tricks[i]; });
      }
    }
    return out;
  }

  function zwickenReplay(d, r) {
    const n = d.frames.length - 1, mine = current;
    const state = { step: clampStep(r.step, n), seat: parseSeat(r.seat, d.players) };
    setCrumbs([["", "Tournaments"], ["t=" + d.tournament_id, d.tournament],
      ["t=" + d.tournament_id + "&match=" + d.match, "match " + d.match], [null, "deal " + d.deal_id]]);
    document.title = "Deal " + d.deal_id + " · " + d.tournament + " · Zwicker Arena";
    const moves = d.frames.map(function (f, k) { return k ? zwMove(d.frames[k - 1], f) : null; });
    const shownCard = d.frames.map(function (f) { return f.exposed; }).find(function (c) { return c; }) || null;  // Titschen's, once played gone from the frames
    main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Deal " + d.deal_id),
      h("span", { class: "muted" }, "match " + d.match + ", board " + d.board + ", " + roomName(d.room) + " room, attempt " +
        (d.number + 1) + " of the board · " + d.variant + " · seed " + d.seed + " · dealer seat " + d.dealer)));
    const seatName = function (seat) { const x = d.seats.find(function (q) { return q.seat === seat; }); return x ? x.bot : "?"; };

    const ctl = stepControls(d, state, n, mine, go, draw);
    const felt = h("div", { class: "felt ring zw-felt", id: "felt" });
    const score = h("div", { id: "score", class: "score-area" });
    const list = h("ol", { class: "moves", id: "movelist" });
    list.appendChild(h("li", { "data-step": 0, onclick: function () { go(0); } }, h("span", { class: "n" }, "0"), h("span", null, "the deal")));
    d.frames.slice(1).forEach(function (f, i) {
      const x = moves[i + 1];
      list.appendChild(h("li", { "data-step": i + 1, onclick: function () { go(i + 1); } },
        h("span", { class: "n" }, String(i + 1)), h("span", { class: "s" }, "S" + f.move.seat), h("span", { class: "mono" }, f.move.text),
        x.winner !== null ? h("span", { class: "muted sum" }, "trick to S" + x.winner) : null));
    });
    const seatsCard = h("section", { class: "card seats-card" }, h("h2", null, "Seats"), h("table", { id: "seats" },
      h("thead", null, h("tr", null, ["Seat", "Bot", "Announced itself as", "Ended"].map(function (x) { return h("th", null, x); }))),
      h("tbody", null, d.seats.map(function (q) {
        return h("tr", null, h("td", { class: "num" }, q.seat), h("td", { class: "bot" }, q.bot),
          h("td", null, h("span", { class: "says" }, q.says)),
          h("td", null, q.status === "ok" ? "ok" : [badge(q.status, "fault"), " ", q.detail]));
      }))));
    const layout = h("div", { class: "replay" });
    layout.appendChild(h("section", { class: "card felt-card" }, ctl.controls, felt,
      h("p", { class: "keys" }, h("kbd", null, "\u2190"), " ", h("kbd", null, "\u2192"), " step, ", h("kbd", null, "space"),
        " play or pause; a hand that passes is never shown, not even before it passes.")));
    layout.appendChild(h("section", { class: "card moves-card" }, h("h2", null, "Moves"), list));
    layout.appendChild(score);
    layout.appendChild(seatsCard);
    main.appendChild(layout);

    function seatBox(seat, f) {
      const decided = f.decisions[seat], hand = f.hands[seat], size = f.hand_sizes[seat];
      const withheld = hand.length < size;  // a passed hand (or one that will pass): never shown
      const box = h("div", { class: "seat" + (f.to_move === seat ? " tomove" : "") + (decided === "pass" ? " passed" : ""), "data-seat": seat },
        h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, seatName(seat)),
          seat === d.dealer ? badge("dealer", "") : null,
          decided ? badge(decided, decided === "play" ? "finished" : "") : null,
          f.to_move === seat ? badge("to move", "running") : null),
        h("div", { class: "zw-stats" }, h("span", { "data-balance": seat }, "balance " + chips(f.balances[seat])),
          h("span", null, "tricks " + f.tricks[seat])));
      const row = h("div", { class: "hand" });
      if (decided === "pass") row.appendChild(h("div", { class: "empty" }, "passed: " + size + " cards out, never shown"));
      else if (!size) row.appendChild(h("div", { class: "empty" }, "no cards"));
      else if (withheld) for (let k = 0; k < size; k++) row.appendChild(zwCard(null));
      else hand.forEach(function (c) { row.appendChild(state.seat === null || state.seat === seat ? zwCard(c) : zwCard(null)); });
      box.appendChild(row);
      return box;
    }
    function trickEl(cards, winner, id) {
      return h("div", { class: "zw-trick", id: id }, cards.map(function (sc) {
        return h("div", { class: "unit" + (sc[0] === winner ? " won" : ""), "data-seat": sc[0] }, h("span", { class: "idx" }, "S" + sc[0]), zwCard(sc[1]));
      }));
    }
    function draw() {
      const f = d.frames[state.step];
      ctl.update();
      clear(felt);
      const trumpCard = f.method === "schlecken" ? f.turned : f.method === "titschen" ? shownCard : null;
      felt.appendChild(h("div", { class: "center" },
        h("div", { class: "tableinfo" },
          h("span", { id: "zw-pot" }, "Pot: " + f.pot + " chips"), h("span", null, "Stake: " + f.stake),
          h("span", { id: "zw-trump" }, f.trump ? "Trumps: " + suitName(f.trump) + (f.method === "titschen" ? " (Titschen: the dealer's card)" : " (Schlecken: the stock's top card)")
            : "Trumps: the dealer chooses"),
          h("span", null, "Stock: " + f.stock)),
        h("div", { class: "units" }, trumpCard ? h("div", { class: "unit", id: "trump-card" }, h("span", { class: "idx" }, f.method === "titschen" ? "shown" : "turned"),
          zwCard(trumpCard)) : null,
          f.trick.length ? trickEl(f.trick, null, "zw-current") : null,
          state.step && moves[state.step].trick ? trickEl(moves[state.step].trick, moves[state.step].winner, "zw-done") : null),
        lastMove(f)));
      for (let seat = 0; seat < d.players; seat++) felt.appendChild(seatBox(seat, f));
      felt.appendChild(tricksSoFar());
      markStep(list, state.step);
      drawScore(state.step === n);
      stepHash(d, state, r);
    }
    function lastMove(f) {
      const out = h("div", { class: "lastmove", id: "lastmove" });
      if (!f.move) {
        out.appendChild(document.createTextNode(f.over ? "The attempt ended as dealt" + (d.breakdown ? " (" + d.breakdown.event + ")" : "") + "."
          : "The deal as dealt: the dealer, seat " + f.to_move + " (" + seatName(f.to_move) + "), chooses how trumps are made."));
        return out;
      }
      const x = moves[state.step];
      out.appendChild(document.createTextNode("Move " + state.step + ": seat " + f.move.seat + " (" + seatName(f.move.seat) + ") " + x.text));
      if (x.card) out.appendChild(zwCard(x.card, { small: true }));
      if (x.after) out.appendChild(document.createTextNode(x.after));
      if (x.winner !== null) out.appendChild(document.createTextNode("; seat " + x.winner + " (" + seatName(x.winner) + ") takes the trick"));
      out.appendChild(h("span", { class: "muted" }, "  " + f.move.text + (f.move.ms !== null && f.move.ms !== undefined ? " · " + (f.move.ms < 1 ? f.move.ms.toFixed(2) : f.move.ms.toFixed(1)) + " ms" : "")));
      if (f.over) out.appendChild(h("div", { class: "muted" }, "The attempt is over: see the result below."));
      return out;
    }
    function tricksSoFar() {
      const done = [];
      for (let k = 1; k <= state.step; k++) if (moves[k].trick) done.push(moves[k]);
      const box = h("div", { class: "zw-tricks", id: "zw-tricks" }, h("div", { class: "who" }, "Tricks played: " + done.length));
      done.forEach(function (x, i) {
        box.appendChild(h("div", { class: "zw-row", "data-trick": i + 1 }, h("span", { class: "idx" }, String(i + 1)),
          x.trick.map(function (sc) { return h("span", { class: sc[0] === x.winner ? "won" : null }, "S" + sc[0] + " ", zwCard(sc[1], { small: true })); }),
          h("span", null, "\u2192 seat " + x.winner)));
      });
      return box;
    }
    function drawScore(atEnd) {
      clear(score);
      if (!atEnd) return;
      const c = card("Result");
      c.id = "breakdown";
      const b = d.breakdown;
      if (b) {
        c.appendChild(h("p", null, "Ended: " + b.event + " · pot " + b.pot + " · trumps " + suitName(b.trump) + " · " + b.carry + " chips carried to the next attempt."));
        c.appendChild(h("table", { class: "breakdown" },
          h("thead", null, h("tr", null, ["Seat", "Bot", "In", "Tricks", "Won", "Paid", "Net"].map(function (x, k) { return h("th", { class: k > 2 ? "num" : null }, x); }))),
          h("tbody", null, d.seats.map(function (q) {
            const i = q.seat;
            return h("tr", null, h("td", { class: "num" }, i), h("td", { class: "bot" }, q.bot), h("td", null, b.in[i] ? "play" : "–"),
              h("td", { class: "num" }, b.tricks[i]), h("td", { class: "num" }, b.won[i]), h("td", { class: "num" }, b.paid[i]),
              h("td", { class: "num bot" }, chips(b.net[i])));
          }))));
        Object.keys(b.shown || {}).forEach(function (seat) {
          c.appendChild(h("p", null, "Seat " + seat + " shows its hand: ", b.shown[seat].map(function (x) { return zwCard(x, { small: true }); })));
        });
      } else {
        c.appendChild(h("p", null, "The deal stopped here."));
      }
      if (d.forfeit) c.appendChild(h("p", { class: "error" }, "Seat " + d.forfeit.seat + " faulted (" + d.forfeit.status + ": ",
        h("span", null, d.forfeit.detail || ""), ") and forfeits."));
      if (d.points) c.appendChild(h("p", { class: "muted" }, "Stored chips: " + d.points.join(" · ") + "."));
      score.appendChild(c);
    }
    function go(k) {
      state.step = Math.max(0, Math.min(n, k | 0));
      draw();
    }
    replayKeys(d, state, n, go, ctl.toggle, draw, r);
  }

  function clampStep(text, n) {
    const k = text === null || text === undefined || text === "" ? 0 : parseInt(text, 10);
    return isNaN(k) ? 0 : Math.max(0, Math.min(n, k));
  }
  function parseSeat(text, players) {
    if (text === null || text === undefined || text === "") return null;
    const k = parseInt(text, 10);
    return isNaN(k) || k < 0 || k >= players ? null : k;
  }

  document.addEventListener("keydown", function (e) { if (current && current.onKey) current.onKey(e); });
  window.addEventListener("hashchange", navigate);
  navigate();
})();
