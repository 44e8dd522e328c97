/* Zwicken's viewer for the arena's pages: a stored attempt's frames (games/zwicken/__init__.py
 * State.frame: the trump choice, the decisions, the trick on the table, the pot and the
 * balances; a hand that passes is withheld in every frame) and a room in play (its public view).
 *
 * A viewer module imports nothing: the pages give it `kit` (elements from text only, their
 * number format) and draw the controls, the move list and the seats around it. */

// A card: rank (A K O U 10 9 8 7) and the German suit, drawn with the French pip it stands for
// (Eichel ♣, Gras ♠, Herz ♥, Schellen ♦) in its own colour; the Welli is 7S.
const SUITS = { E: ["\u2663", "Eichel"], G: ["\u2660", "Gras"], H: ["\u2665", "Herz"], S: ["\u2666", "Schellen"] };
const RANKS = { A: "Sau", K: "König", O: "Ober", U: "Unter", T: "10" };

function zwCard(h, code, opts) {
  opts = opts || {};
  if (code === null) return h("span", { class: "cardface back" + (opts.small ? " small" : ""), title: "a hidden card" });
  const suit = SUITS[code[1]] || ["?", "?"], rank = code[0] === "T" ? "10" : code[0];
  const name = code === "7S" ? "the Welli (Schellen-7)" : suit[1] + "-" + (RANKS[code[0]] || code[0]);
  return h("span", { class: "cardface zw zw-" + code[1] + (opts.small ? " small" : "") + (opts.fresh ? " new" : ""),
    title: name + " (" + code + ")", "data-card": code }, h("span", { class: "r" }, rank + (code === "7S" ? "W" : "")),
    h("span", { class: "s" }, suit[0]));
}
function suitName(s) { return s && SUITS[s] ? SUITS[s][1] : "–"; }

// What a move did, from the frames before and after it: the trump choice with its card, a
// decision, a card and, when it completed a trick, the trick and its winner.
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

export function replay(d, kit) {
  const h = kit.h, badge = kit.badge, chips = kit.fmt.chips;
  const card = function (c, o) { return zwCard(h, c, o); };
  const moves = d.frames.map(function (f, k) { return k ? zwMove(d.frames[k - 1], f) : null; });
  const shownCard = d.frames.map(function (f) { return f.exposed; }).find(function (c) { return c; }) || null;  // Titschen's, once played gone from the frames

  function seatBox(seat, f, view, seatName) {
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
    else if (withheld) for (let k = 0; k < size; k++) row.appendChild(card(null));
    else hand.forEach(function (c) { row.appendChild(view === null || view === seat ? card(c) : card(null)); });
    box.appendChild(row);
    return box;
  }
  function trickEl(cards, winner, id) {
    return h("div", { class: "zw-trick", id: id }, cards.map(function (sc) {
      return h("div", { class: "unit" + (sc[0] === winner ? " won" : ""), "data-seat": sc[0] }, h("span", { class: "idx" }, "S" + sc[0]), card(sc[1]));
    }));
  }
  function lastMove(f, k, seatName) {
    const out = h("div", { class: "lastmove", id: "lastmove" });
    const text = function (t) { out.appendChild(document.createTextNode(t)); };
    if (!f.move) {
      text(f.over ? "The attempt ended as dealt" + (d.breakdown ? " (" + d.breakdown.event + ")" : "") + "."
        : "The deal as dealt: the dealer, seat " + f.to_move + " (" + seatName(f.to_move) + "), chooses how trumps are made.");
      return out;
    }
    const x = moves[k];
    text("Move " + k + ": seat " + f.move.seat + " (" + seatName(f.move.seat) + ") " + x.text);
    if (x.card) out.appendChild(card(x.card, { small: true }));
    if (x.after) text(x.after);
    if (x.winner !== null) text("; seat " + x.winner + " (" + seatName(x.winner) + ") takes the trick");
    out.appendChild(h("span", { class: "muted" }, "  " + f.move.text + (f.move.ms !== null && f.move.ms !== undefined ? " · " + kit.fmt.ms(f.move.ms) : "")));
    if (f.over) out.appendChild(h("div", { class: "muted" }, "The attempt is over: see the result below."));
    return out;
  }
  function tricksSoFar(step) {
    const done = [];
    for (let k = 1; k <= step; k++) if (moves[k].trick) done.push(moves[k]);
    const box = h("div", { class: "zw-tricks", id: "zw-tricks" }, h("div", { class: "who" }, "Tricks played: " + done.length));
    done.forEach(function (x, i) {
      box.appendChild(h("div", { class: "zw-row", "data-trick": i + 1 }, h("span", { class: "idx" }, String(i + 1)),
        x.trick.map(function (sc) { return h("span", { class: sc[0] === x.winner ? "won" : null }, "S" + sc[0] + " ", card(sc[1], { small: true })); }),
        h("span", null, "\u2192 seat " + x.winner)));
    });
    return box;
  }

  return {
    subtitle: "match " + d.match + ", board " + d.board + ", " + kit.fmt.roomName(d.room) + " room, attempt " +
      (d.number + 1) + " of the board · " + d.variant + " · seed " + d.seed + " · dealer seat " + d.dealer,
    feltClass: "felt ring zw-felt",
    sides: false,
    keys: "A hand that passes is never shown, not even before it passes.",
    note: function (k) { return moves[k].winner !== null ? h("span", { class: "muted sum" }, "trick to S" + moves[k].winner) : null; },
    draw: function (felt, k, view, seatName) {
      const f = d.frames[k];
      const trumpCard = f.method === "schlecken" ? f.turned : f.method === "titschen" ? shownCard : null;
      felt.appendChild(h("div", { class: "center" },
        h("div", { class: "tableinfo" },
          h("span", { id: "zw-pot" }, "Pot: " + f.pot + " chips"), h("span", null, "Stake: " + f.stake),
          h("span", { id: "zw-trump" }, f.trump ? "Trumps: " + suitName(f.trump) + (f.method === "titschen" ? " (Titschen: the dealer's card)" : " (Schlecken: the stock's top card)")
            : "Trumps: the dealer chooses"),
          h("span", null, "Stock: " + f.stock)),
        h("div", { class: "units" }, trumpCard ? h("div", { class: "unit", id: "trump-card" }, h("span", { class: "idx" }, f.method === "titschen" ? "shown" : "turned"),
          card(trumpCard)) : null,
          f.trick.length ? trickEl(f.trick, null, "zw-current") : null,
          k && moves[k].trick ? trickEl(moves[k].trick, moves[k].winner, "zw-done") : null),
        lastMove(f, k, seatName)));
      for (let seat = 0; seat < d.players; seat++) felt.appendChild(seatBox(seat, f, view, seatName));
      felt.appendChild(tricksSoFar(k));
    },
    scoreTitle: "Result",
    score: function (c) {
      const b = d.breakdown;
      if (!b) { c.appendChild(h("p", null, "The deal stopped here.")); return; }
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
        c.appendChild(h("p", null, "Seat " + seat + " shows its hand: ", b.shown[seat].map(function (x) { return card(x, { small: true }); })));
      });
    },
    stored: function (points) { return "Stored chips: " + points.join(" · ") + "."; },
  };
}

// A room in play: its public view (how many cards each seat holds, never which; the trump
// card, the trick on the table, the pot and the balances).
export function live(x, kit) {
  const h = kit.h, badge = kit.badge, chips = kit.fmt.chips;
  const card = function (c) { return zwCard(h, c); };
  return {
    subtitle: kit.fmt.roomName(x.room_no) + " room · board " + x.board_no + ", attempt " + (x.deal + 1) + " · " + x.variant +
      " · dealer seat " + x.dealer + " · move " + x.moves.length,
    feltClass: "felt ring zw-felt",
    draw: function (felt) {
      const trumpCard = x.method === "schlecken" ? x.turned : x.exposed;
      const last = x.moves.length ? x.moves[x.moves.length - 1] : null;
      felt.appendChild(h("div", { class: "center" },
        h("div", { class: "tableinfo" }, h("span", null, "Pot: " + x.pot + " chips"),
          h("span", null, x.trump ? "Trumps: " + suitName(x.trump) + " (" + x.method + ")" : "Trumps: the dealer chooses"),
          h("span", null, "Stock: " + x.stock)),
        h("div", { class: "units", id: "live-units" }, trumpCard ? h("div", { class: "unit" }, h("span", { class: "idx" }, x.method === "schlecken" ? "turned" : "shown"), card(trumpCard)) : null,
          x.trick.length ? h("div", { class: "zw-trick" }, x.trick.map(function (sc) {
            return h("div", { class: "unit", "data-seat": sc[0] }, h("span", { class: "idx" }, "S" + sc[0]), card(sc[1]));
          })) : null),
        h("div", { class: "lastmove", id: "lastmove" }, last ? "Move " + x.moves.length + ": seat " + last.seat + " (" + x.bots[last.seat] + ") " + last.text
          : "The deal as dealt: the dealer, seat " + x.dealer + ", chooses how trumps are made.")));
      for (let seat = 0; seat < x.players; seat++) {
        const decided = x.decisions[seat], size = x.hand_sizes[seat];
        const row = h("div", { class: "hand" });
        if (decided === "pass") row.appendChild(h("div", { class: "empty" }, "passed"));
        else for (let k = 0; k < size; k++) row.appendChild(card(null));
        felt.appendChild(h("div", { class: "seat" + (x.to_move === seat ? " tomove" : "") + (decided === "pass" ? " passed" : ""), "data-seat": seat },
          h("div", { class: "who" }, h("span", { class: "seatno" }, "Seat " + seat), h("span", null, x.bots[seat]),
            seat === x.dealer ? badge("dealer", "") : null, decided ? badge(decided, decided === "play" ? "finished" : "") : null,
            x.to_move === seat ? badge("to move", "running") : null),
          h("div", { class: "zw-stats" }, h("span", null, "balance " + chips(x.balances[seat])), h("span", null, "tricks " + x.tricks[seat])), row));
      }
    },
  };
}
