/* Elements made from text only: everything bots wrote (names, versions, details, stderr) is
 * untrusted, so every element is made with createElement and filled with textContent; no HTML
 * string is ever parsed. */

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
export function h(tag, attrs) {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  for (let i = 2; i < arguments.length; i++) add(el, arguments[i]);
  return el;
}
const SVGNS = "http://www.w3.org/2000/svg";
export function s(tag, attrs) {
  const el = document.createElementNS(SVGNS, tag);
  setAttrs(el, attrs);
  for (let i = 2; i < arguments.length; i++) add(el, arguments[i]);
  return el;
}
export function clear(el) { while (el.firstChild) el.removeChild(el.firstChild); }
export function link(hash, text, cls) { return h("a", { href: "#" + hash, class: cls }, text); }
export function card(title) { return h("section", { class: "card" }, title ? h("h2", null, title) : null); }
export function badge(text, cls) { return h("span", { class: "badge " + (cls || text) }, text); }
