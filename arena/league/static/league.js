// The league page refreshes its content every few seconds (the server answers from memory).
"use strict";
(function () {
  const main = document.getElementById("main");
  async function refresh() {
    try {
      const r = await fetch("/?part=main", { cache: "no-store" });
      if (r.ok) main.innerHTML = await r.text();  // the server escaped every name in it
    } catch (e) { /* the server restarts: try again at the next tick */ }
  }
  setInterval(refresh, 3000);
})();
