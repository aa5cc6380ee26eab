// The account console: plain JavaScript, no dependencies. It speaks GraphQL
// to the production endpoint with the session cookie, and sends the CSRF
// token (the lsk_csrf cookie) in X-CSRF-Token with every POST.
"use strict";

const body = document.body;
const GRAPHQL = body.dataset.graphql;
const PREFIX = body.dataset.prefix;
const $ = (id) => document.getElementById(id);

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return "";
}

class AuthError extends Error {}

async function gql(query, variables) {
  const res = await fetch(GRAPHQL, {
    method: "POST",
    credentials: "same-origin",
    headers: {
      "Content-Type": "application/json",
      "Accept": "application/graphql-response+json",
      "X-CSRF-Token": cookie("lsk_csrf"),
    },
    body: JSON.stringify({ query, variables }),
  });
  if (res.status === 401) throw new AuthError("signed out");
  const out = await res.json();
  if (out.errors && out.errors.length) {
    if (out.errors.some((e) => e.extensions && e.extensions.code === "UNAUTHENTICATED")) throw new AuthError("signed out");
    throw new Error(out.errors.map((e) => e.message).join("; "));
  }
  return out.data;
}

function show(id, on) { $(id).hidden = !on; }
function text(el, s) { el.textContent = s == null ? "" : s; return el; }
function fmt(t) { return t ? new Date(t).toLocaleString() : "—"; }

function showLogin(message) {
  show("nav", false); show("profile", false); show("login-view", true);
  const err = $("login-error");
  err.hidden = !message; text(err, message || "");
  $("email").focus();
}

let allScopes = [];

async function start() {
  // Without the CSRF cookie there is no session: skip the doomed request.
  if (!cookie("lsk_csrf")) return showLogin();
  try {
    const data = await gql("{ me { id email role } scopes }");
    if (!data.me) return showLogin();
    showApp(data.me, data.scopes);
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    showLogin(e.message);
  }
}

function showApp(me, scopes) {
  show("login-view", false); show("nav", true); show("profile", true);
  text($("whoami"), me.email);
  text($("profile-email"), me.email);
  text($("profile-role"), me.role);
  allScopes = scopes;
  const list = $("scope-list");
  list.replaceChildren();
  for (const s of scopes) {
    const label = document.createElement("label");
    label.className = "inline";
    const box = document.createElement("input");
    box.type = "checkbox"; box.name = "scope"; box.value = s;
    label.append(box, " " + s);
    list.append(label);
  }
  loadTokens();
}

async function loadTokens() {
  const data = await gql("{ apiTokens { id name prefix environment scopes createdAt lastUsedAt expiresAt revokedAt } }");
  const tbody = $("tokens").querySelector("tbody");
  tbody.replaceChildren();
  for (const t of data.apiTokens) {
    const tr = document.createElement("tr");
    tr.dataset.id = t.id;
    if (t.revokedAt) tr.className = "revoked";
    const cell = () => tr.appendChild(document.createElement("td"));
    text(cell(), t.name).className = "token-name";
    const code = document.createElement("code");
    text(code, t.prefix + "…");
    cell().append(code);
    const env = document.createElement("span");
    env.className = "tag env-" + t.environment;
    cell().append(text(env, t.environment));
    const sc = cell();
    const every = allScopes.length > 0 && allScopes.every((s) => t.scopes.includes(s));
    for (const s of every ? ["all scopes"] : t.scopes) {
      const sp = document.createElement("span"); sp.className = "tag"; sc.append(text(sp, s));
    }
    text(cell(), fmt(t.createdAt));
    text(cell(), fmt(t.lastUsedAt)).className = "last-used";
    text(cell(), t.expiresAt ? fmt(t.expiresAt) : "never");
    const act = cell();
    if (t.revokedAt) {
      text(act, "revoked " + fmt(t.revokedAt));
    } else {
      const b = document.createElement("button");
      b.type = "button"; b.className = "danger revoke"; b.dataset.id = t.id;
      text(b, "Revoke");
      b.addEventListener("click", () => revoke(t));
      act.append(b);
    }
    tbody.append(tr);
  }
  show("no-tokens", data.apiTokens.length === 0);
}

async function revoke(t) {
  if (!confirm("Revoke the token \"" + t.name + "\"? Requests sending it will fail.")) return;
  try {
    await gql("mutation($id: ID!) { revokeApiToken(id: $id) { id revokedAt } }", { id: t.id });
    await loadTokens();
  } catch (e) { if (e instanceof AuthError) showLogin(); else alert(e.message); }
}

$("login-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const res = await fetch(PREFIX + "/api/login", {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: $("email").value, password: $("password").value }),
  });
  if (!res.ok) {
    let msg = "Sign-in failed.";
    try { msg = (await res.json()).detail || msg; } catch (_) { /* not JSON */ }
    return showLogin(msg);
  }
  $("password").value = "";
  start();
});

$("logout").addEventListener("click", async () => {
  await fetch(PREFIX + "/api/logout", { method: "POST", credentials: "same-origin", headers: { "X-CSRF-Token": cookie("lsk_csrf") } });
  show("token-secret", false); text($("secret-value"), "");
  showLogin();
});

$("new-token").addEventListener("click", () => {
  $("token-form").reset();
  show("token-error", false);
  show("token-form", true);
  $("token-name").focus();
});
$("token-cancel").addEventListener("click", () => show("token-form", false));
$("scope-all").addEventListener("change", (ev) => {
  for (const b of document.querySelectorAll("input[name=scope]")) b.checked = ev.target.checked;
});

$("token-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const scopes = [...document.querySelectorAll("input[name=scope]:checked")].map((b) => b.value);
  const exp = $("token-expires").value;
  const input = { name: $("token-name").value, environment: $("token-env").value, scopes };
  if (exp) input.expiresAt = new Date(exp + "T23:59:59").toISOString();
  try {
    const data = await gql("mutation($input: CreateApiTokenInput!) { createApiToken(input: $input) { secret token { id } } }", { input });
    show("token-form", false);
    text($("secret-value"), data.createApiToken.secret);
    text($("copy-status"), "");
    show("token-secret", true);
    await loadTokens();
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    const err = $("token-error"); text(err, e.message); err.hidden = false;
  }
});

$("copy-secret").addEventListener("click", async () => {
  const secret = $("secret-value").textContent;
  try {
    await navigator.clipboard.writeText(secret);
    text($("copy-status"), "Copied.");
  } catch (_) {
    const r = document.createRange(); r.selectNodeContents($("secret-value"));
    const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r);
    text($("copy-status"), document.execCommand("copy") ? "Copied." : "Select the text and copy it.");
  }
});
$("password-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  show("password-error", false); show("password-done", false);
  const res = await fetch(PREFIX + "/api/password", {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": cookie("lsk_csrf") },
    body: JSON.stringify({ currentPassword: $("current-password").value, newPassword: $("new-password").value }),
  });
  if (res.status === 401) return showLogin("Your session has ended: sign in again.");
  if (!res.ok) {
    let msg = "The password was not changed.";
    try {
      const p = await res.json();
      msg = (p.errors && p.errors.length ? p.errors.map((e) => e.message).join("; ") : p.detail) || msg;
    } catch (_) { /* not JSON */ }
    const err = $("password-error"); text(err, msg); err.hidden = false;
    return;
  }
  $("password-form").reset();
  show("password-done", true);
});

$("secret-done").addEventListener("click", () => { show("token-secret", false); text($("secret-value"), ""); });

start();
