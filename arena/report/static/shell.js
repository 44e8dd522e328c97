/* The page around every view: where views draw, the trail of links above them, the title. */
import { h, clear, link } from "./dom.js";

export const MODE = window.ZA_MODE === "files" ? "files" : "api";
export const main = document.getElementById("main");
const crumbs = document.getElementById("crumbs");
const SITE = document.title;  // the app's name, from its page

export function setCrumbs(parts) {
  clear(crumbs);
  parts.forEach(function (p, i) {
    if (i) crumbs.appendChild(h("span", { class: "sep" }, "/"));
    crumbs.appendChild(p[0] !== null ? link(p[0], p[1]) : h("span", null, p[1]));
  });
}
export function setTitle(parts) { document.title = parts.concat([SITE]).join(" · "); }
