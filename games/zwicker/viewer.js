/* Zwicker's viewer for the arena's pages: a stored deal's frames (games/zwicker/__init__.py State.frame:
 * every hand, the table's units, stock, taken cards, Zwicks, the move with what it took) and a
 * table in play (its public view: how many cards each hand holds, never which).
 *
 * A viewer module imports nothing: the pages give it `kit` (elements from text only, their
 * number format) and draw the controls, the move list and the seats around it. */

const SUITS = { C: "\u2663", D: "\u2666", H: "\u2665", S: "\u2660" };
const POS = { 0: "south", 1: "west", 2: "north", 3: "east" };

function cardEl(h, code, opts) {
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

function perSide(label, xs) { return label + xs.map(function (x, i) { return "side " + i + " " + x; }).join(", "); }

export function replay(d, kit) {
  const h = kit.h, badge = kit.badge, card = function (c, o) { return cardEl(h, c, o); };
  const sideOf = function (seat) { return d.seat_sides[seat]; };

  function hand(seat, f, view, seatName) {
    const shown = view === null || view === seat;
    const box = h("div", { class: "seat" + (f.to_move === seat ? " tomove" : ""), "data-seat": seat });
    if (d.players === 4) box.classList.add("pos-" + POS[(seat - (view === null ? 0 : view) + 4) % 4]);
    const info = d.seats.find(function (q) { return q.seat === seat; }) || {};
    box.appendChild(h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, seatName(seat)),
      h("span", { class: "muted" }, d.sides === d.players ? "" : "side " + sideOf(seat)),
      seat === d.dealer ? badge("dealer", "") : null,
      info.status && info.status !== "ok" ? badge(info.status, "fault") : null,
      f.to_move === seat ? badge("to move", "running") : null));
    const row = h("div", { class: "hand" });
    if (!f.hands[seat].length) row.appendChild(h("div", { class: "empty" }, "no cards"));
    f.hands[seat].forEach(function (c) { row.appendChild(shown ? card(c) : card(null)); });
    box.appendChild(row);
    return box;
  }
  function unitEl(u, i, fresh) {
    if (typeof u === "string")
      return h("div", { class: "unit", "data-unit": i }, h("span", { class: "idx" }, String(i)), card(u, { fresh: fresh }));
    return h("div", { class: "unit build", "data-unit": i }, h("span", { class: "idx" }, String(i)),
      h("div", { class: "pile" }, u.build.map(function (c, k) { return card(c, { fresh: fresh && k === u.build.length - 1 }); })),
      h("span", { class: "tag", title: "a build of " + u.value + ", last built by seat " + u.by }, "= " + u.value + " · seat " + u.by));
  }
  function moveText(f, k, seatName) {
    const m = f.move;
    const out = h("div", { class: "lastmove", id: "lastmove" });
    const text = function (t) { out.appendChild(document.createTextNode(t)); };
    text("Move " + k + ": seat " + m.seat + " (" + seatName(m.seat) + ") ");
    if (m.type === "capture") {
      text("captures ");
      m.took.forEach(function (cards) { cards.forEach(function (c) { out.appendChild(card(c, { small: true })); }); });
      text(" with ");
      out.appendChild(card(m.card, { small: true }));
      if (m.value !== null) text(" at " + m.value);
    } else if (m.type === "build") {
      text("builds ");
      out.appendChild(card(m.card, { small: true }));
      text(" onto ");
      (m.onto_cards || []).forEach(function (c) { out.appendChild(card(c, { small: true })); });
      text(" announcing " + m.value);
      if (m.sum) out.appendChild(h("span", { class: "sum", title: "the build's value: the unit's, then the card's" }, " (" + m.sum + ")"));
    } else {
      text("trails ");
      out.appendChild(card(m.card, { small: true }));
    }
    out.appendChild(h("span", { class: "muted" }, "  " + m.text + (m.ms !== null && m.ms !== undefined ? " · " + kit.fmt.ms(m.ms) : "")));
    if (m.zwick) { text(" "); out.appendChild(badge("Zwick!", "zwick")); }
    if (m.leftovers) out.appendChild(h("div", { class: "muted" }, "The deal is over: the " + m.leftovers +
      (m.leftovers === 1 ? " card" : " cards") + " left on the table go to side " + m.leftovers_to + ", the last to capture."));
    return out;
  }

  return {
    subtitle: "match " + d.match + ", board " + d.board + (d.swapped ? " (sides swapped)" : "") +
      (d.number ? ", deal " + (d.number + 1) + " of the game" : "") + " · " + d.variant + " · seed " + d.seed + " · dealer seat " + d.dealer,
    feltClass: "felt" + (d.players === 4 ? "" : " ring"),
    sides: true,
    scoreTitle: "Score",
    note: function (k) {
      const m = d.frames[k].move;
      return [m.zwick ? badge("zwick", "zwick") : null, m.sum ? h("span", { class: "muted sum" }, m.sum) : null];
    },
    draw: function (felt, k, view, seatName) {
      const f = d.frames[k];
      for (let seat = 0; seat < d.players; seat++) felt.appendChild(hand(seat, f, view, seatName));
      const fresh = f.move && f.move.type !== "capture";
      const units = h("div", { class: "units", id: "table-units" });
      if (!f.table.length) units.appendChild(h("div", { class: "empty muted" }, "The table is empty."));
      f.table.forEach(function (u, i) {
        units.appendChild(unitEl(u, i, fresh && (f.move.type === "trail" ? i === f.table.length - 1 : i === f.move.onto)));
      });
      felt.appendChild(h("div", { class: "center" },
        h("div", { class: "tableinfo" }, h("span", null, "Stock: " + f.stock), h("span", null, perSide("Taken: ", f.taken)),
          h("span", null, perSide("Zwicks: ", f.zwicks)),
          f.points ? h("span", { id: "running-score", title: "card points and Zwick points taken so far; the most-cards bonus comes at the end" },
            perSide("Points so far: ", f.points)) : null),
        units,
        f.move ? moveText(f, k, seatName)
          : h("div", { class: "lastmove", id: "lastmove" }, "The deal as dealt: seat " + f.to_move + " (" + seatName(f.to_move) + ") plays first.")));
    },
    score: function (c, seatName) {
      if (!d.breakdown) { c.appendChild(h("p", null, "The deal stopped here.")); return; }
      const body = h("tbody");
      d.breakdown.forEach(function (side, i) {
        const seats = [];
        for (let q = 0; q < d.players; q++) if (sideOf(q) === i) seats.push(seatName(q));
        body.appendChild(h("tr", null, h("td", { class: "bot" }, "Side " + i), h("td", null, Array.from(new Set(seats)).join(", ")),
          h("td", { class: "num" }, side.cards),
          h("td", null, side.point_cards.map(function (pc) { return h("span", { title: pc[0] + ": " + pc[1] }, card(pc[0], { small: true })); })),
          h("td", { class: "num" }, side.card_points), h("td", { class: "num" }, side.most_cards),
          h("td", { class: "num" }, side.zwicks + " (" + side.zwick_points + ")"),
          h("td", { class: "num bot" }, side.total)));
      });
      c.appendChild(h("table", { class: "breakdown" },
        h("thead", null, h("tr", null, ["Side", "Bots", "Cards", "Point cards", "Card points", "Most cards", "Zwicks (points)", "Total"]
          .map(function (x, k) { return h("th", { class: k === 2 || k > 3 ? "num" : null }, x); }))), body));
    },
  };
}

export function live(x, kit) {
  const h = kit.h, badge = kit.badge, card = function (c) { return cardEl(h, c); };
  return {
    subtitle: (x.swapped ? "swapped" : "straight") + " room · board " + x.board_no + (x.deal ? ", deal " + (x.deal + 1) : "") + " · " + x.variant +
      " · dealer seat " + x.dealer + " · move " + x.moves.length,
    feltClass: "felt" + (x.players === 4 ? "" : " ring"),
    draw: function (felt) {
      for (let seat = 0; seat < x.players; seat++) {
        const box = h("div", { class: "seat" + (x.to_move === seat ? " tomove" : "") + (x.players === 4 ? " pos-" + POS[seat] : ""), "data-seat": seat },
          h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, x.bots[seat]),
            h("span", { class: "muted" }, "side " + x.seat_sides[seat]), seat === x.dealer ? badge("dealer", "") : null,
            x.to_move === seat ? badge("to move", "running") : null));
        const row = h("div", { class: "hand" });
        if (!x.hands[seat]) row.appendChild(h("div", { class: "empty" }, "no cards"));
        for (let k = 0; k < x.hands[seat]; k++) row.appendChild(card(null));
        box.appendChild(row);
        felt.appendChild(box);
      }
      const units = h("div", { class: "units", id: "live-units" });
      if (!x.table.length) units.appendChild(h("div", { class: "empty muted" }, "The table is empty."));
      x.table.forEach(function (u, i) {
        units.appendChild(typeof u === "string"
          ? h("div", { class: "unit", "data-unit": i }, h("span", { class: "idx" }, String(i)), card(u))
          : h("div", { class: "unit build", "data-unit": i }, h("span", { class: "idx" }, String(i)),
            h("div", { class: "pile" }, u.build.map(function (c) { return card(c); })),
            h("span", { class: "tag" }, "= " + u.value + " · seat " + u.by)));
      });
      const last = x.moves.length ? x.moves[x.moves.length - 1] : null;
      felt.appendChild(h("div", { class: "center" },
        h("div", { class: "tableinfo" }, h("span", null, "Stock: " + x.stock), h("span", null, perSide("Taken: ", x.taken)),
          h("span", null, perSide("Zwicks: ", x.zwicks)), h("span", null, perSide("Points so far: ", x.points))),
        units,
        h("div", { class: "lastmove", id: "lastmove" }, last ? "Move " + x.moves.length + ": seat " + last.seat + " (" + x.bots[last.seat] + ") " + last.text
          : "The deal as dealt: seat " + x.to_move + " plays first.")));
    },
  };
}
