// A single-page app on its own origin that uses the Logistics Service with a
// session cookie: it signs in through the session API, lists open orders and
// creates and submits orders through GraphQL (urql), sending the session's
// CSRF token with every request, and says so plainly when the session ends.
// Its operations are trusted documents: graphql-codegen (codegen.ts) writes
// them, with their SHA-256 hashes, to src/gql/persisted-documents.json, the
// manifest a deployment registers, and the app sends the hash alone.
import { Client, fetchExchange } from "@urql/core";
import { persistedExchange } from "@urql/exchange-persisted";
import { graphql } from "./gql";

// The environment's base address: ?api=… (the tests pass it), else the
// build-time VITE_API_URL, else the local sandbox under this page's host
// name — localhost and 127.0.0.1 are different sites, and a session cookie
// set by the API on the other one would never come back.
const API = (new URLSearchParams(location.search).get("api") || import.meta.env.VITE_API_URL ||
  "http://" + location.hostname + ":8080/sandbox").replace(/\/$/, "");

// The CSRF token comes from the sign-in (or session) answer: an app on
// another site cannot read the API's lsk_csrf cookie, so it is kept here.
let csrf = "";

const client = new Client({
  url: API + "/graphql",
  // Every operation by its hash (extensions.persistedQuery), by POST, never
  // its text: codegen's documents carry the hash of the text the manifest
  // holds, as "sha256:<hex>" (the documentId form; persistedQuery takes the
  // hex). A server under --trusted-documents-sessions=enforce runs them.
  exchanges: [
    persistedExchange({
      enforcePersistedQueries: true,
      enableForMutation: true,
      preferGetForPersistedQueries: false,
      generateHash: async (_, document) => document["__meta__"].hash.replace(/^sha256:/, ""),
    }),
    fetchExchange,
  ],
  preferGetMethod: false,
  requestPolicy: "network-only",
  fetchOptions: () => ({ credentials: "include", headers: { "X-CSRF-Token": csrf } }),
});

const OPEN_ORDERS = graphql(`
  query OpenOrders {
    orders(first: 50, where: { status: "open" }, orderBy: [{ field: CREATED_AT, direction: DESC }]) {
      totalCount
      edges { node { id number customerRef status hub { code } } }
    }
    hubs(first: 50, orderBy: [{ field: CODE, direction: ASC }]) { edges { node { id code name } } }
  }`);

const CREATE_ORDER = graphql(`
  mutation CreateOrder($input: CreateOrderInput!) {
    createOrder(input: $input) { id number status }
  }`);

const SUBMIT = graphql(`
  mutation Submit($id: ID!) {
    transitionOrder(id: $id, transition: "submit") { id number status }
  }`);

const $ = (id) => document.getElementById(id);

const unreachable = "Cannot reach the Logistics API at " + API + ": is it running, and is this page's origin (" +
  location.origin + ") listed in its --cors-origins setting?";

// SessionEnded is thrown when the server no longer knows the session.
class SessionEnded extends Error {}

function message(text) {
  $("message").textContent = text || "";
  $("message").hidden = !text;
}

function signedOut(text) {
  csrf = "";
  $("app").hidden = true;
  $("signout").hidden = true;
  $("who").textContent = "";
  $("signin").hidden = false;
  message(text);
}

function signedIn(session) {
  csrf = session.csrfToken;
  $("who").textContent = session.user.email;
  $("signin").hidden = true;
  $("signout").hidden = false;
  $("app").hidden = false;
}

// check turns a urql result into data, or throws what the user should read.
function check(result) {
  const err = result.error;
  if (!err) return result.data;
  const codes = err.graphQLErrors.map((e) => e.extensions && e.extensions.code);
  if (codes.includes("UNAUTHENTICATED") || (err.response && err.response.status === 401)) {
    throw new SessionEnded();
  }
  if (err.networkError) throw new Error(unreachable);
  throw new Error(err.graphQLErrors.map((e) => e.message).join("; "));
}

async function run(work) {
  try {
    message("");
    await work();
  } catch (e) {
    if (e instanceof SessionEnded) return signedOut("Your session has ended. Please sign in again.");
    message(e.message);
  }
}

async function loadOrders() {
  const data = check(await client.query(OPEN_ORDERS, {}).toPromise());
  $("total").textContent = data.orders.totalCount + " open orders";
  const rows = data.orders.edges.map(({ node }) => {
    const tr = document.createElement("tr");
    tr.dataset.id = node.id;
    for (const v of [node.number, node.customerRef, node.hub.code, node.status]) {
      const td = document.createElement("td");
      td.textContent = v;
      tr.append(td);
    }
    return tr;
  });
  $("orders").tBodies[0].replaceChildren(...rows);
  const select = $("hub");
  if (!select.options.length) {
    for (const { node } of data.hubs.edges) select.append(new Option(node.code + " — " + node.name, node.id));
  }
}

async function api(path, init) {
  try {
    return await fetch(API + path, { credentials: "include", ...init });
  } catch (_) {
    // A refused origin gets no CORS headers: the browser reports only this.
    throw new Error(unreachable);
  }
}

$("signin").addEventListener("submit", (ev) => {
  ev.preventDefault();
  run(async () => {
    const res = await api("/console/api/login", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: $("email").value, password: $("password").value }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(body.detail || "Sign-in failed (" + res.status + ").");
    $("password").value = "";
    signedIn(body);
    await loadOrders();
  });
});

$("create").addEventListener("submit", (ev) => {
  ev.preventDefault();
  run(async () => {
    const input = { hubID: $("hub").value, customerRef: $("ref").value };
    const created = check(await client.mutation(CREATE_ORDER, { input }).toPromise()).createOrder;
    check(await client.mutation(SUBMIT, { id: created.id }).toPromise());
    $("ref").value = "";
    await loadOrders();
  });
});

$("signout").addEventListener("click", () => {
  run(async () => {
    await api("/console/api/logout", { method: "POST", headers: { "X-CSRF-Token": csrf } });
    signedOut("");
  });
});

// On load: is there a session already (the cookie is the API's)?
run(async () => {
  const res = await api("/console/api/session", { headers: { Accept: "application/json" } });
  if (!res.ok) return signedOut("");
  signedIn(await res.json());
  await loadOrders();
});
