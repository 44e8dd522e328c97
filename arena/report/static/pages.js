/* The views of a database's results: the tournaments, a tournament (standings, crosstable,
 * Elo history, an SPRT's test, matches), a bot and a match. Each draws into the shell's main
 * from its page's data (arena/report/pages.py). */
import { h, link, card, badge } from "./dom.js";
import { elo, signed, pct, when, chips, roomName } from "./format.js";
import { lineChart, eloScale, errorBar, axis, scoreBar, scoreAxis, heatColour, PALETTE } from "./chart.js";
import { MODE, main, setCrumbs, setTitle } from "./shell.js";

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

export function listPage(data) {
  setCrumbs([[null, "Tournaments"]]);
  setTitle(["Tournaments"]);
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

export function tournamentPage(data) {
  const t = data.tournament;
  setCrumbs([["", "Tournaments"], [null, t.name]]);
  setTitle([t.name]);
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
  const last = Math.max(1, x.path[x.path.length - 1][0]);
  let lo = x.lower, hi = x.upper;
  x.path.forEach(function (p) { lo = Math.min(lo, p[1]); hi = Math.max(hi, p[1]); });
  const pad = (hi - lo) * 0.08;
  const g = lineChart({ width: 900, height: 260, margin: [44, 110, 12, 28], x: [0, last], y: [lo - pad, hi + pad], yTicks: 5, xTicks: 8,
    yFormat: function (v) { return v.toFixed(1); }, id: "llr", label: "the log-likelihood ratio over the boards, between its bounds",
    rules: [{ y: x.upper, label: "H1: " + x.upper.toFixed(2), cls: "bound bound-h1" }, { y: x.lower, label: "H0: " + x.lower.toFixed(2), cls: "bound bound-h0" },
      { y: 0, cls: "bound zero" }],
    lines: [{ points: x.path, cls: "llr" }] });
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
  c.appendChild(h("table", { id: "latest" },
    h("thead", null, h("tr", null, h("th", null, "Stored"), h("th", null, "Match"), h("th", null, "Board"), h("th", null, "Entrants: margin"))),
    h("tbody", null, latest.map(function (b) {
      return h("tr", { "data-match": b.match_no, "data-board": b.board_no }, h("td", { class: "muted num" }, (b.completed || "").slice(11, 19)),
        h("td", null, link("t=" + t.id + "&match=" + b.match_no, "#" + b.match_no)), h("td", { class: "num" }, b.board_no),
        h("td", null, entrantList(b.entrants, b.margins, null, t)));
    }))));
  return c;
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
  const marginHead = (table.columns.find(function (col) { return col.key === "margin"; }) || {}).heading;  // a unit per board: "chips/board", say
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

function historyCard(hist) {
  const c = card("Elo as the boards came in");
  c.classList.add("chart");
  if (!hist.seq.length) {
    c.appendChild(h("p", { class: "muted" }, "No board has finished yet."));
    return c;
  }
  let lo = Infinity, hi = -Infinity;
  hist.bots.forEach(function (b) { b.elo.forEach(function (e) { if (e !== null) { lo = Math.min(lo, e); hi = Math.max(hi, e); } }); });
  if (lo === hi) { lo -= 10; hi += 10; }
  const legend = h("div", { class: "legend" });
  const order = hist.bots.slice().sort(function (a, b) { return (b.elo[b.elo.length - 1] || 0) - (a.elo[a.elo.length - 1] || 0); });
  const lines = order.map(function (b, i) {
    const colour = PALETTE[i % PALETTE.length];
    legend.appendChild(h("span", null, h("span", { class: "swatch", style: "background:" + colour }), b.bot));
    return { points: b.elo.map(function (e, k) { return [hist.seq[k], e]; }), colour: colour, title: b.bot };
  });
  const g = lineChart({ width: 900, height: 300, margin: [48, 12, 10, 28], x: [hist.seq[0], hist.seq[hist.seq.length - 1]], y: [lo, hi],
    yTicks: 6, xTicks: 8, grid: "#e3e6eb", yFormat: elo, lines: lines, id: "history",
    label: "each bot's Elo fitted on the boards played so far" });
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
// An entrant's name, each of its bots linked to its page where known: `a`, or `a+b` for
// mixed partners.
function entrantName(name, t, ids) {
  if (!ids) return name;
  if (ids[name] !== undefined) return link("t=" + t.id + "&bot=" + ids[name], name);
  const bots = name.split("+");
  if (!bots.every(function (b) { return ids[b] !== undefined; })) return name;
  return bots.map(function (b, i) { return [i ? "+" : "", link("t=" + t.id + "&bot=" + ids[b], b)]; });
}
// Entrants, each with a number (its margin: for two sides of partners over the other, else its
// chips or points) and, if given, a note (its W-D-L); the best number in bold.
function entrantList(names, values, notes, t, ids) {
  const top = Math.max.apply(null, values);
  return h("ul", { class: "entrants-list" }, names.map(function (name, e) {
    return h("li", { "data-entrant": e }, h("span", { class: values[e] === top ? "bot" : null }, entrantName(name, t, ids)),
      h("span", { class: "num", "data-result": values[e] }, chips(values[e])),
      notes ? h("span", { class: "muted", "data-note": "" }, " · " + notes[e]) : null);
  }));
}
function wdl(m, e) { return m.wins[e] + "-" + m.draws[e] + "-" + m.losses[e]; }
// Matches of k entrants: each one's margin and W-D-L over the boards done; `bot`: its own record
// (from its entrant's side).
function matchesTable(matches, t, id, bot) {
  return h("table", { id: id || "matches", class: "matches" },
    h("thead", null, h("tr", null, h("th", { class: "num" }, "#"), h("th", null, "Entrants: margin · W-D-L"),
      h("th", { class: "wide-only" }, ""), h("th", { class: "num" }, "Boards"),
      bot ? h("th", { class: "num" }, "W-D-L (" + bot + ")") : null, bot ? h("th", { class: "num" }, "Margin") : null,
      h("th", { class: "num wide-only" }, "Faults"))),
    h("tbody", null, matches.map(function (m) {
      return h("tr", { class: m.playing ? "playing" : null, "data-match": m.match_no },
        h("td", { class: "num" }, link("t=" + t.id + "&match=" + m.match_no, "#" + m.match_no)),
        h("td", null, entrantList(m.entrants, m.margins, m.entrants.map(function (_, e) { return wdl(m, e); }), t)),
        h("td", { class: "wide-only" }, matchState(m)),
        h("td", { class: "num" }, m.boards_done + " / " + m.boards, m.playing ? h("span", { class: "narrow-only sub" }, "in play") : null,
          m.playing && m.boards_started > m.boards_done ? h("div", { class: "sub" }, "+" + (m.boards_started - m.boards_done) + " under way") : null),
        bot ? h("td", { class: "num", "data-col": "bot-wdl" }, m.bot ? m.bot.wins + "-" + m.bot.draws + "-" + m.bot.losses : "") : null,
        bot ? h("td", { class: "num", "data-col": "bot-margin" }, m.bot ? signed(m.bot.margin) : "") : null,
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
      m.entrants.join(" v "), " · ",
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
export function botPage(data) {
  const t = data.tournament, b = data.bot, r = data.standing;
  setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], [null, b.label]]);
  setTitle([b.label, t.name]);
  main.appendChild(h("div", { class: "page-head" }, h("h1", { id: "bot-name" }, b.label),
    h("span", { class: "muted" }, "version " + b.version + " · " + b.kind + (b.sha256 ? " · sha256 " + b.sha256.slice(0, 12) : ""))));

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
      const g = scoreBar(o, 200);
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
        ", " + roomName(f.room) + " room, seat " + f.seat + ": ",
        h("span", { class: "detail" }, f.detail),
        last !== undefined ? h("span", null, " · ", link("deal=" + last + "&seat=" + f.seat, "replay where it stopped")) : null),
      f.stderr ? h("pre", { class: "stderr" }, (f.stderr_cut ? "…" : "") + f.stderr)
        : h("p", { class: "muted" }, f.stderr_private ? "(its stderr is its author's: a league's, not shown)" : "(nothing on stderr)")));
  });
  main.appendChild(fc);
}

// The bot's Elo and rank in every tournament with stored ratings (each on its own scale).
function botHistoryCard(hist, t) {
  const c = card("Across tournaments");
  c.id = "bot-history";
  if (!hist.length) { c.appendChild(h("p", { class: "muted" }, "No finished tournament has rated it yet.")); return c; }
  if (hist.length > 1) {
    let lo = Infinity, hi = -Infinity;
    hist.forEach(function (x) { lo = Math.min(lo, x.elo); hi = Math.max(hi, x.elo); });
    if (hi - lo < 20) { lo -= 10; hi += 10; }
    const g = lineChart({ width: 600, height: 120, margin: [40, 10, 10, 20], x: [0, hist.length - 1], y: [lo, hi], yTicks: 3, xTicks: 0,
      yFormat: elo, label: "Elo in each tournament",
      lines: [{ points: hist.map(function (x, i) { return [i, x.elo]; }), colour: "#2456a6",
        dots: hist.map(function (x) { return x.tournament; }) }] });
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
// A match of k entrants: each board in its k rooms, each room's seats with the chips (or
// points) each seat won there, and the board's result per entrant over the rooms.
export function matchPage(data) {
  const t = data.tournament, m = data.match, k = m.entrants.length;
  const unit = data.unit || "points", sideOf = data.seat_sides;  // a side of several seats scores once for all
  setCrumbs([["", "Tournaments"], ["t=" + t.id, t.name], [null, "match " + m.match_no]]);
  setTitle(["Match " + m.match_no, t.name]);
  const totals = m.entrants.map(function () { return 0; });
  const record = { wins: totals.slice(), draws: totals.slice(), losses: totals.slice() };
  m.boards.forEach(function (b) {
    if (!b.results) return;
    b.margins.forEach(function (x, e) { totals[e] += x; });
    b.results.forEach(function (x, e) {
      b.results.forEach(function (y, f) {
        if (f !== e) record[x > y ? "wins" : x < y ? "losses" : "draws"][e] += 1;
      });
    });
  });
  main.appendChild(h("div", { class: "page-head" }, h("h1", null, "Match " + m.match_no),
    h("span", { id: "match-entrants" }, m.entrants.map(function (name, e) { return [e ? " v " : "", entrantName(name, t, data.bot_ids)]; })),
    h("span", { class: "muted" },
      m.match_no > 1 ? link("t=" + t.id + "&match=" + (m.match_no - 1), "← previous") : null,
      m.match_no < t.matches ? [" ", link("t=" + t.id + "&match=" + (m.match_no + 1), "next →")] : null)));
  const sum = card("Entrants over the boards finished");
  sum.id = "entrants";
  sum.appendChild(entrantList(m.entrants, totals, m.entrants.map(function (_, e) { return wdl(record, e); }), t, data.bot_ids));
  sum.appendChild(h("p", { class: "muted" }, "Margin over the finished boards, each board's over its " + k + " rooms (" +
    (t.partnerships ? "a side of partners: its " + unit + " less the other side's" : "its " + unit) + "); " +
    "W-D-L: each board compares an entrant with each other entrant on their " + unit + "."));
  main.appendChild(sum);
  const c = card("Boards");
  const body = h("tbody");
  m.boards.forEach(function (b) {
    b.tables.forEach(function (tb, i) {
      const seats = h("ol", { class: "entrants-list seats-list", start: 0 }, tb.seats.map(function (bot, seat) {
        return h("li", { "data-seat": seat }, h("span", { class: "muted" }, seat + " "), bot,
          h("span", { class: "num", "data-points": tb.points[sideOf ? sideOf[seat] : seat] }, chips(tb.points[sideOf ? sideOf[seat] : seat])));
      }));
      body.appendChild(h("tr", { "data-board": b.board_no, "data-room": tb.room },
        i === 0 ? h("td", { class: "num", rowspan: b.tables.length, "data-label": "Board " }, b.board_no) : null,
        i === 0 ? h("td", { class: "mono muted wide-only", rowspan: b.tables.length }, b.seed) : null,
        h("td", { "data-label": "Room " }, roomName(tb.room)),
        h("td", null, seats),
        i === 0 ? h("td", { rowspan: b.tables.length, "data-col": "results", "data-label": "Board " + b.board_no + " over its rooms" },
          b.margins ? entrantList(m.entrants, b.margins, null, t) : "playing") : null,
        h("td", null, tb.faults.map(function (f) { return h("div", null, badge(f.status, "fault"), " seat " + f.seat + ": ", f.detail); }),
          tb.deal_ids.length ? h("div", { class: "deal-links" }, "deals ", tb.deal_ids.map(function (d, j) { return [j ? " " : "", link("deal=" + d, String(j + 1))]; })) : null)));
    });
  });
  c.appendChild(h("table", { id: "boards", class: "entrant-boards" },
    h("thead", null, h("tr", null, ["Board", "Seed", "Room", "Seats: " + unit + " won there", "Board: margin", "Replay"]
      .map(function (x, i) { return h("th", { class: i === 1 ? "wide-only" : null }, x); }))), body));
  c.appendChild(h("p", { class: "muted" }, "Room r gives side s to entrant (s − r) mod " + k + ": over a board's rooms every entrant holds every side once" +
    (t.partnerships ? " (a side's seats each show its result). " : ", a side being a seat. ") +
    "Replay: the room's attempts (deals) in order."));
  main.appendChild(c);
}