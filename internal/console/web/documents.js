// The console's Trusted documents section: the GraphQL documents trusted in
// the chosen environment (docs/graphql.md: Trusted documents), and retiring
// one. Registration is the build's job (CLI, REST or GraphQL), not a form
// here. It reuses app.js's gql, $, show, text and fmt, and webhooks.js's
// whGQL-style environment switch, and loads when the profile card appears.
"use strict";

const DOCUMENT_FIELDS = "hash operationName clientName clientVersion createdAt";

async function docGQL(query, variables) {
  const env = $("documents-env").value;
  const url = env === "sandbox" ? body.dataset.sandboxGraphql : GRAPHQL;
  if (url === GRAPHQL) return gql(query, variables);
  const res = await fetch(url, {
    method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "Accept": "application/graphql-response+json", "X-CSRF-Token": cookie("lsk_csrf") },
    body: JSON.stringify({ query, variables }),
  });
  if (res.status === 401) throw new AuthError("signed out");
  const out = await res.json();
  if (out.errors && out.errors.length) throw new Error(out.errors.map((e) => e.message).join("; "));
  return out.data;
}

async function loadDocuments() {
  show("documents-error", false);
  let data;
  try {
    data = await docGQL("{ trustedDocuments(first: 100) { nodes { " + DOCUMENT_FIELDS + " } } }");
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    const err = $("documents-error"); text(err, e.message); err.hidden = false;
    return;
  }
  const tbody = $("documents-table").querySelector("tbody");
  tbody.replaceChildren();
  for (const d of data.trustedDocuments.nodes) {
    const tr = document.createElement("tr");
    tr.dataset.hash = d.hash;
    const cell = () => tr.appendChild(document.createElement("td"));
    text(cell(), d.operationName || "(anonymous)");
    const h = cell(); const code = document.createElement("code"); h.append(text(code, d.hash.slice(0, 12) + "…")); code.title = d.hash;
    text(cell(), d.clientName + (d.clientVersion ? " " + d.clientVersion : ""));
    text(cell(), fmt(d.createdAt));
    const b = document.createElement("button"); b.type = "button"; b.className = "secondary small retire-document";
    text(b, "Retire");
    b.addEventListener("click", () => retireDocument(d));
    cell().append(b);
    tbody.append(tr);
  }
  show("no-documents", data.trustedDocuments.nodes.length === 0);
}

async function retireDocument(d) {
  if (!confirm("Retire " + (d.operationName || d.hash) + "? Clients can no longer send it by hash.")) return;
  try {
    await docGQL("mutation($h: String!) { retireTrustedDocument(hash: $h) { hash } }", { h: d.hash });
  } catch (e) {
    if (e instanceof AuthError) return showLogin();
    const err = $("documents-error"); text(err, e.message); err.hidden = false;
    return;
  }
  loadDocuments();
}

$("documents-env").addEventListener("change", () => loadDocuments());
if (!body.dataset.sandboxGraphql) $("documents-env").querySelector("option[value=sandbox]").disabled = true;
new MutationObserver(() => { if (!$("profile").hidden) loadDocuments(); })
  .observe($("profile"), { attributes: true, attributeFilter: ["hidden"] });
if (!$("profile").hidden) loadDocuments();
