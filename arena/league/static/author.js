// The author's page: their bots from /api/me with their token, and the submission form.
// The token stays in this tab (sessionStorage); every text from the server is set as text.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const tokenInput = $("token");
  tokenInput.value = sessionStorage.getItem("league-token") || "";

  function el(tag, text, cls) {
    const e = document.createElement(tag);
    if (text !== undefined && text !== null) e.textContent = String(text);
    if (cls) e.className = cls;
    return e;
  }
  function auth() { return { Authorization: "Bearer " + tokenInput.value.trim() }; }

  async function load() {
    const box = $("my-bots");
    if (!tokenInput.value.trim()) return;
    const r = await fetch("/api/me", { headers: auth(), cache: "no-store" });
    const data = await r.json();
    box.replaceChildren();
    if (!r.ok) { box.append(el("p", data.error, "error")); return; }
    if (!data.bots.length) { box.append(el("p", "No bots yet: submit one above.", "muted")); return; }
    for (const bot of data.bots) {
      const card = el("div", null, "bot-card");
      const head = el("h3", bot.name);
      if (bot.retired) head.append(" ", el("span", "retired", "badge"));
      card.append(head);
      const table = el("table");
      const thead = el("thead");
      const hr = el("tr");
      for (const h of ["version", "submitted", "check", "boards", "faults"]) hr.append(el("th", h));
      thead.append(hr);
      table.append(thead);
      const body = el("tbody");
      for (const v of bot.versions) {
        const tr = el("tr");
        tr.append(el("td", bot.name + "@" + v.version, "bot"), el("td", v.submitted),
                  el("td", v.check.conformant ? "conformant" : "not conformant"),
                  el("td", v.boards, "num"), el("td", v.faults.length, "num"));
        body.append(tr);
        const details = el("details");
        details.append(el("summary", "check output and faults of " + bot.name + "@" + v.version));
        details.append(el("pre", v.check_text, "stderr"));
        for (const f of v.faults) {
          details.append(el("p", "match " + f.match_no + " board " + f.board_no + " seat " + f.seat + ": " +
                                 f.status + ": " + f.detail, "fault"));
          if (f.stderr) details.append(el("pre", f.stderr, "stderr"));
        }
        const row = el("tr");
        const cell = el("td");
        cell.colSpan = 5;
        cell.append(details);
        row.append(cell);
        body.append(row);
      }
      table.append(body);
      card.append(table);
      if (!bot.retired) {
        const button = el("button", "Retire " + bot.name);
        button.addEventListener("click", async () => {
          const rr = await fetch("/api/bots/" + encodeURIComponent(bot.name) + "/retire", { method: "POST", headers: auth() });
          if (!rr.ok) { const d = await rr.json(); box.prepend(el("p", d.error, "error")); return; }
          load();
        });
        card.append(button);
      }
      box.append(card);
    }
  }

  $("token-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    sessionStorage.setItem("league-token", tokenInput.value.trim());
    load();
  });

  $("submit-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const out = $("submit-result");
    const check = $("submit-check");
    out.className = "";
    out.textContent = "Checking in the sandbox…";
    check.hidden = true;
    const form = new FormData();
    form.append("name", $("bot-name").value.trim());
    const command = $("bot-command").value.trim();  // how it runs (a Java jar, say): checked by the server
    if (command) form.append("command", command);
    const file = $("bot-file").files[0];
    if (file) form.append("archive", file, file.name);
    try {
      const r = await fetch("/api/submit", { method: "POST", headers: auth(), body: form });
      const text = await r.text();
      let data;
      try {
        data = JSON.parse(text);
      } catch (e) { // a proxy's own page (a body too large for it, say)
        data = { error: r.statusText || "the answer was not the league's" };
      }
      if (r.ok) {
        out.textContent = data.summary;
        out.className = "ok";
      } else {
        out.textContent = r.status + ": " + data.error;
        out.className = "error";
      }
      if (data.check || data.stderr) {
        check.textContent = (data.check || "") + (data.stderr ? "\n--- stderr ---\n" + data.stderr : "");
        check.hidden = false;
      }
    } catch (e) {
      out.textContent = "the server did not answer: " + e;
      out.className = "error";
    }
    load();
  });

  load();
})();
