/* The league's view (its home, `arena league serve`'s `/`): standings with their intervals,
 * what plays, the bots waiting for their first matches, each bot's rating across its versions
 * and the recent results, from the league's data (/api/league: arena/league/server.py), pushed
 * again each time it changes. Its matches and deals open in the app's own views. */
import { h, link, card, badge } from "./dom.js";
import { elo, signed, chips, roomName } from "./format.js";
import { lineChart, eloScale, errorBar, axis, PALETTE } from "./chart.js";
import { main, setCrumbs, setTitle } from "./shell.js";

function interval(r) {
  if (r.more_than !== null && r.more_than !== undefined) return "> " + elo(r.more_than);
  if (r.less_than !== null && r.less_than !== undefined) return "< " + elo(r.less_than);
  if (r.ci_low === null || r.ci_low === undefined) return "–";
  return elo(r.ci_low) + " … " + elo(r.ci_high);
}

function standingsCard(data) {
  const c = card("Standings");
  if (!data.standings.length) { c.appendChild(h("p", { class: "muted" }, "No bots yet.")); return c; }
  const W = 160, sc = eloScale(data.standings.filter(function (r) { return r.elo !== null; }), W, 0);
  const heads = [["#", "num"], ["bot", ""], ["author", "wide-only"], ["elo", "num"], ["95% interval", "num"],
    [axis(sc, W), "wide-only bar-col"], ["boards", "num"], ["W", "num wide-only"], ["D", "num wide-only"],
    ["L", "num wide-only"], ["margin", "num wide-only"], ["faults", "num"]];
  c.appendChild(h("div", { class: "table-wrap" }, h("table", { id: "standings", class: "standings" },
    h("thead", null, h("tr", null, heads.map(function (x) { return h("th", { class: x[1] }, x[0]); }))),
    h("tbody", null, data.standings.map(function (r) {
      const state = r.active ? null : r.retired ? badge("retired", "interrupted") : badge("replaced", "interrupted");
      return h("tr", { "data-bot": r.bot },
        h("td", { class: "num" }, r.rank),
        h("td", { class: "bot" }, link("t=" + data.tid + "&bot=" + r.bot_id, r.bot), state ? [" ", state] : null,
          r.author ? h("span", { class: "narrow-only sub" }, r.author) : null),
        h("td", { class: "wide-only" }, r.author || ""),
        h("td", { class: "num" }, elo(r.elo)),
        h("td", { class: "num" }, interval(r)),
        h("td", { class: "wide-only bar-col" }, r.elo !== null ? errorBar(r, sc, W) : null),
        h("td", { class: "num" }, r.boards),
        h("td", { class: "num wide-only" }, r.wins), h("td", { class: "num wide-only" }, r.draws),
        h("td", { class: "num wide-only" }, r.losses),
        h("td", { class: "num wide-only" }, r.avg_margin === null ? "–" : signed(r.avg_margin, 1)),
        h("td", { class: "num" }, r.faults));
    })))));
  c.appendChild(h("p", { class: "muted" }, "Elo (Bradley-Terry over every board; " +
    (data.anchor ? "0 = " + data.anchor : "0 = the pool's mean") + ") with its 95% bootstrap interval. " +
    "The version of each bot its author submitted last plays."));
  return c;
}

function playingCard(data) {
  const c = card("In play");
  if (data.playing.length) {
    c.appendChild(h("table", { id: "playing" },
      h("thead", null, h("tr", null, h("th", null, "match"), h("th", null, "entrants"), h("th", { class: "num" }, "rooms stored"))),
      h("tbody", null, data.playing.map(function (m) {
        const rooms = [];
        for (let r = 0; r < (m.rooms || 0); r++) rooms.push(r);
        return h("tr", { "data-match": m.match_no },
          h("td", { class: "num" }, link("t=" + data.tid + "&match=" + m.match_no, "#" + m.match_no)),
          h("td", { class: "bot-list" }, m.entrants.join(" v "), h("span", { class: "sub" }, "watch: ", rooms.map(function (r, i) {
            return [i ? " · " : "", link("live=" + data.tid + "-" + m.match_no + "-" + roomName(r), roomName(r))];
          }))),
          h("td", { class: "num" }, m.tables));
      }))));
  } else {
    c.appendChild(h("p", { class: "muted" }, "Nothing in play."));
  }
  if (data.waiting.length) c.appendChild(h("p", { class: "muted", id: "waiting" }, "Waiting for first matches: " + data.waiting.join(", ")));
  return c;
}

// Each name's Elo over the league's growing record: a line per version, a dot where it takes over.
function historyCard(history) {
  const c = card("Rating history");
  c.classList.add("chart", "league-history");
  const names = Object.keys(history).sort();
  const points = [];
  names.forEach(function (n) { history[n].forEach(function (p) { points.push(p); }); });
  if (!points.length) { c.appendChild(h("p", { class: "muted" }, "No ratings yet.")); return c; }
  let lo = Math.min.apply(null, points.map(function (p) { return p.elo; }));
  let hi = Math.max.apply(null, points.map(function (p) { return p.elo; }));
  if (hi - lo < 50) { lo -= 25; hi += 25; }
  const last = Math.max.apply(null, points.map(function (p) { return p.point; }));
  const lines = [], legend = h("p", { class: "legend" });
  names.forEach(function (name, k) {
    const colour = PALETTE[k % PALETTE.length], byVersion = new Map();
    history[name].forEach(function (p) {
      if (!byVersion.has(p.version)) byVersion.set(p.version, []);
      byVersion.get(p.version).push(p);
    });
    byVersion.forEach(function (segment, version) {
      const title = name + "@" + version, pts = segment.map(function (p) { return [p.point, p.elo]; });
      lines.push({ points: pts, colour: colour, title: title });
      lines.push({ points: [pts[0]], colour: colour, dots: [title] });
    });
    const line = history[name];
    legend.appendChild(h("span", { class: "key" }, h("span", { class: "swatch", style: "background:" + colour }),
      name + "@" + line[line.length - 1].version));
  });
  c.appendChild(lineChart({ width: 320, height: 190, margin: [40, 8, 8, 20], x: [1, Math.max(last, 2)], y: [lo, hi],
    yTicks: 4, xTicks: 4, grid: "#e3e6eb", yFormat: elo, lines: lines, id: "league-history", label: "rating history" }));
  c.appendChild(legend);
  return c;
}

function recentCard(data) {
  const c = card("Recent results");
  if (!data.recent.length) { c.appendChild(h("p", { class: "muted" }, "No match finished yet.")); return c; }
  c.appendChild(h("table", { id: "recent" },
    h("thead", null, h("tr", null, h("th", null, "match"), h("th", null, "entrants: margin · W-D-L"), h("th", { class: "num" }, "faults"))),
    h("tbody", null, data.recent.map(function (m) {
      return h("tr", { "data-match": m.match_no }, h("td", { class: "num" }, link("t=" + data.tid + "&match=" + m.match_no, String(m.match_no))),
        h("td", null, h("ul", { class: "entrants-list" }, m.entrants.map(function (e, i) {
          return h("li", { "data-entrant": i }, h("span", null, e), h("span", { class: "num", "data-result": m.margins[i] }, chips(m.margins[i])),
            h("span", { class: "muted" }, " · " + m.wins[i] + "-" + m.draws[i] + "-" + m.losses[i]));
        }))),
        h("td", { class: "num" }, m.faults));
    }))));
  return c;
}

export function leaguePage(data) {
  setCrumbs([[null, data.league]]);
  setTitle([data.league]);
  main.appendChild(h("div", { class: "page-head" }, h("h1", null, data.league),
    h("span", { class: "muted" }, data.matches + " matches, " + data.boards_done + " boards, " + data.boards_per_match + " boards a match")));
  main.appendChild(standingsCard(data));
  main.appendChild(h("div", { class: "grid2" }, playingCard(data), historyCard(data.history)));
  main.appendChild(recentCard(data));
}
