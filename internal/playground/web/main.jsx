// Entry point of the GraphiQL bundle served by internal/playground.
//
// Everything the page needs is bundled into assets/graphiql.js and
// assets/graphiql.css by `go run ./internal/playground/build`; nothing is
// loaded from a CDN. Configuration comes from data-* attributes of the
// #graphiql element because the page's Content-Security-Policy forbids
// inline scripts.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { setNonce } from 'get-nonce';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-ws';
import 'graphiql/graphiql.css';
import './page.css';

const DEFAULT_QUERY = `# Logistics GraphQL playground
#
# Requests carry your session cookie and CSRF token.
# To use an API token instead, add under "Headers":
#   { "Authorization": "Bearer <token>" }
#
# Run a query with Ctrl-Enter (Cmd-Enter on a Mac). Subscriptions run
# over a WebSocket, e.g.
#   subscription { orderChanged { sequence type order { id status } } }

{
  hubs(first: 5) {
    totalCount
    edges {
      node {
        id
        code
        name
      }
    }
  }
}
`;

const CSRF_COOKIE = 'lsk_csrf';
const CSRF_HEADER = 'X-CSRF-Token';

function readCookie(name) {
  for (const part of document.cookie.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) {
      const value = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return '';
}

// Subscriptions go over a WebSocket (graphql-transport-ws, the graphql-ws
// client): the browser sends the session cookie on the upgrade; an
// Authorization typed into the headers editor goes into connection_init.
// One client per distinct Authorization, reused across subscriptions.
const wsClients = new Map();

function wsClient(endpoint, authorization) {
  const key = authorization || '';
  let c = wsClients.get(key);
  if (!c) {
    const u = new URL(endpoint, window.location.href);
    u.protocol = u.protocol === 'https:' ? 'wss:' : 'ws:';
    c = createClient({
      url: u.toString(),
      connectionParams: authorization ? { Authorization: authorization } : {},
      lazy: true,
      retryAttempts: 0,
    });
    wsClients.set(key, c);
  }
  return c;
}

function isSubscription(params, opts) {
  try {
    const doc = (opts && opts.documentAST) || parse(params.query);
    const op = getOperationAST(doc, params.operationName || undefined);
    return !!op && op.operation === 'subscription';
  } catch {
    return false;
  }
}

function subscribe(endpoint, params, opts) {
  let authorization = '';
  if (opts && opts.headers) {
    for (const [k, v] of Object.entries(opts.headers)) {
      if (k.toLowerCase() === 'authorization' && v) authorization = String(v);
    }
  }
  const client = wsClient(endpoint, authorization);
  // GraphiQL takes an observable: { subscribe(sink) → { unsubscribe } }.
  return {
    subscribe(sink) {
      const dispose = client.subscribe(params, {
        next: (v) => sink.next(v),
        error: (e) => {
          if (e instanceof Error) sink.error(e);
          else if (e && typeof e.code === 'number') sink.error(new Error(`connection closed: ${e.code} ${e.reason || ''}`));
          else sink.error(new Error(JSON.stringify(e)));
        },
        complete: () => sink.complete(),
      });
      return { unsubscribe: dispose };
    },
  };
}

function makeFetcher(endpoint) {
  return async function fetcher(params, opts) {
    if (isSubscription(params, opts)) return subscribe(endpoint, params, opts);
    const headers = {
      'Content-Type': 'application/json',
      Accept: 'application/graphql-response+json, application/json',
    };
    // Read the cookie on every request: it may be rotated at login.
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) headers[CSRF_HEADER] = csrf;
    // Headers typed into GraphiQL's headers editor come last so that the
    // user can override anything above (e.g. add Authorization).
    if (opts && opts.headers) {
      for (const [k, v] of Object.entries(opts.headers)) {
        if (v !== undefined && v !== null) headers[k] = String(v);
      }
    }
    const res = await fetch(endpoint, {
      method: 'POST',
      credentials: 'same-origin',
      headers,
      body: JSON.stringify(params),
    });
    const text = await res.text();
    try {
      return JSON.parse(text);
    } catch {
      return {
        errors: [
          {
            message: `HTTP ${res.status} ${res.statusText}: response is not JSON`,
            extensions: { body: text.slice(0, 2000) },
          },
        ],
      };
    }
  };
}

// GraphiQL itself does not read the URL; support the conventional
// ?query=&variables=&headers=&operationName= parameters for shareable links.
function urlParams() {
  const p = new URLSearchParams(window.location.search);
  const out = {};
  for (const key of ['query', 'variables', 'headers', 'operationName']) {
    const v = p.get(key);
    if (v !== null) out[key] = v;
  }
  return out;
}

// Radix UI (GraphiQL's dialogs) adds <style> elements at run time. The CSP
// allows them only with the page's per-request nonce, which the server puts
// on the stylesheet <link>; react-style-singleton reads it via get-nonce.
const styleNonce = document.querySelector('link[rel="stylesheet"][nonce]');
if (styleNonce && styleNonce.nonce) setNonce(styleNonce.nonce);

const el = document.getElementById('graphiql');
const endpoint = el.dataset.endpoint || '/graphql';

createRoot(el).render(
  <GraphiQL
    fetcher={makeFetcher(endpoint)}
    defaultQuery={DEFAULT_QUERY}
    isHeadersEditorEnabled={true}
    shouldPersistHeaders={false}
    {...urlParams()}
  />,
);
