/* The one number format of the pages: Elo, signed numbers, shares, times, chips. */

export function signed(x, digits) {
  const t = Math.abs(x).toFixed(digits || 0);
  return x > 0 ? "+" + t : x < 0 ? "\u2212" + t : t;
}
export function elo(x) {
  if (x === null || x === undefined) return "–";
  const r = Math.round(x);
  return r > 0 ? "+" + r : r < 0 ? "\u2212" + (-r) : "0";
}
export function pct(x) { return x === null || x === undefined ? "–" : Math.round(100 * x) + "%"; }
export function when(iso) { return iso ? iso.slice(0, 19).replace("T", " ") : "–"; }
export function chips(x) { return x === null || x === undefined ? "–" : signed(x); }
export function ms(x) { return x === null || x === undefined ? "" : (x < 1 ? x.toFixed(2) : x.toFixed(1)) + " ms"; }
// A room's name (arena.play.live.room_label): straight, swapped, room2, ...
export function roomName(room) { return room === 0 ? "straight" : room === 1 ? "swapped" : "room" + room; }
