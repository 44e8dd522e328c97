/* The page around every view: where views draw, the trail of links above them, the title. */
import { h, clear, link } from "./dom.js";

export const MODE = window.ZA_MODE === "files" ? "files" : "api";
export const main = document.getElementById("main");
const crumbs = document.getElementById("crumbs");
const SITE = document.title;  // the app's name, from its page

// A league's server opens on the league's view (ZA_HOME): the trail starts there, and ends
// with the author's page.
export const HOME = window.ZA_HOME === "league" ? "league" : "tournaments";

export function setCrumbs(parts) {
  clear(crumbs);
  if (HOME === "league" && parts.length && parts[0][0] === "" && parts[0][1] === "Tournaments") parts = [["", "league"]].concat(parts.slice(1));
  parts.forEach(function (p, i) {
    if (i) crumbs.appendChild(h("span", { class: "sep" }, "/"));
    crumbs.appendChild(p[0] !== null ? link(p[0], p[1]) : h("span", null, p[1]));
  });
  if (HOME === "league" && MODE === "api") crumbs.append(h("span", { class: "sep" }, "·"), h("a", { href: "/author" }, "my bots"));
}
export function setTitle(parts) { document.title = parts.concat([SITE]).join(" · "); }
