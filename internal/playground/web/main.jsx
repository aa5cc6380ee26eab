// Entry point of the GraphiQL bundle served by internal/playground.
//
// Everything the page needs is bundled into assets/graphiql.js and
// assets/graphiql.css by `go run ./internal/playground/build`; nothing is
// loaded from a CDN. Configuration comes from data-* attributes of the
// #graphiql element because the page's Content-Security-Policy forbids
// inline scripts.
import React, { useCallback, useEffect, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { useEditorContext } from '@graphiql/react';
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
# Example queries for analysts: the Examples panel (the list icon on the
# left). The Docs explorer (the book icon) describes every field.

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

// ---- Page configuration (data-* attributes: the CSP forbids inline scripts).

const el = document.getElementById('graphiql');
const endpoint = el.dataset.endpoint || '/graphql';
const environment = el.dataset.environment || '';
const baseURL = el.dataset.baseUrl || '';
const signIn = el.dataset.signIn || '';
let examples = [];
try {
  examples = JSON.parse(el.dataset.examples || '[]');
} catch {
  examples = [];
}
const fetcher = makeFetcher(endpoint);

// ---- Shareable links.
//
// The current tab's query, variables and operation name live in the
// address's fragment (#query=…&variables=…&operationName=…): the browser
// never sends a fragment to the server, so shared queries stay out of
// server and proxy logs. Headers are never put in a link (they may hold an
// API key). The older ?query=&variables=&headers=&operationName= parameters
// are still read; the fragment wins. A link longer than MAX_LINK characters
// is not made: chat tools, mail clients and proxies cut longer ones.
const MAX_LINK = 8000;
const LINK_KEYS = ['query', 'variables', 'operationName'];

function linkParams() {
  const out = {};
  const search = new URLSearchParams(window.location.search);
  for (const key of [...LINK_KEYS, 'headers']) {
    const v = search.get(key);
    if (v !== null) out[key] = v;
  }
  const hash = new URLSearchParams(window.location.hash.replace(/^#/, ''));
  if (hash.has('query')) {
    for (const key of LINK_KEYS) delete out[key];
    for (const key of LINK_KEYS) {
      const v = hash.get(key);
      if (v !== null) out[key] = v;
    }
  }
  return out;
}

// linkOperation is the operation name a link needs: none for a document
// with one operation; the editor's selected one when it names one of
// several.
function linkOperation(query, selected) {
  try {
    const names = parse(query)
      .definitions.filter((d) => d.kind === 'OperationDefinition')
      .map((d) => (d.name ? d.name.value : ''));
    return names.length > 1 && selected && names.includes(selected) ? selected : '';
  } catch {
    return '';
  }
}

// shareLink returns the address that reopens values, or null when it would
// be longer than MAX_LINK.
function shareLink({ query, variables, operationName }) {
  const p = new URLSearchParams();
  p.set('query', query || '');
  if (variables && variables.trim() !== '') p.set('variables', variables);
  const op = linkOperation(query || '', operationName);
  if (op) p.set('operationName', op);
  const search = new URLSearchParams(window.location.search);
  for (const key of [...LINK_KEYS, 'headers']) search.delete(key);
  const rest = search.toString();
  const link = window.location.origin + window.location.pathname + (rest ? '?' + rest : '') + '#' + p.toString();
  return link.length <= MAX_LINK ? link : null;
}

// The editors of the active tab, for the header's Share button (outside
// GraphiQL's context): set by EditorBridge, rendered inside GraphiQL.
const activeTab = { get: () => null };

function currentValues() {
  return activeTab.get();
}

// syncAddress keeps the address bar on the active tab's link (replaceState:
// no history entry per keystroke), or without a fragment when too long.
let syncTimer = 0;
function syncAddress() {
  clearTimeout(syncTimer);
  syncTimer = setTimeout(() => {
    const v = currentValues();
    if (!v) return;
    const link = shareLink(v);
    const search = new URLSearchParams(window.location.search);
    for (const key of [...LINK_KEYS, 'headers']) search.delete(key);
    const rest = search.toString();
    const target = link || window.location.pathname + (rest ? '?' + rest : '');
    if (target !== window.location.href) window.history.replaceState(null, '', target);
  }, 300);
}

function EditorBridge() {
  const { queryEditor, variableEditor, tabs, activeTabIndex } = useEditorContext({ nonNull: true });
  // GraphiQL 3.8 starts the variables editor with the ?variables= value or
  // the last variables edited, not the active tab's: on a first visit the
  // example tabs would open without theirs. Fill them in once.
  const filled = useRef(false);
  useEffect(() => {
    if (filled.current || !variableEditor) return;
    filled.current = true;
    const tab = tabs[activeTabIndex];
    if (tab && tab.variables && variableEditor.getValue() !== tab.variables) variableEditor.setValue(tab.variables);
  }, [variableEditor, tabs, activeTabIndex]);
  useEffect(() => {
    activeTab.get = () =>
      queryEditor
        ? {
            query: queryEditor.getValue(),
            variables: variableEditor ? variableEditor.getValue() : '',
            operationName: queryEditor.operationName || '',
          }
        : null;
    syncAddress();
  }, [queryEditor, variableEditor]);
  return null;
}

// ---- The Examples panel (a GraphiQL plugin) and the first visit's tabs.

function ExamplesPanel() {
  const { tabs, changeTab, addTab, queryEditor, variableEditor } = useEditorContext({ nonNull: true });
  const open = (ex) => {
    const i = tabs.findIndex((t) => t.query === ex.query && (t.variables || '') === (ex.variables || ''));
    if (i >= 0) {
      changeTab(i);
      return;
    }
    addTab();
    // addTab fills the new tab's editors once React has applied it.
    setTimeout(() => {
      if (queryEditor) queryEditor.setValue(ex.query);
      if (variableEditor) variableEditor.setValue(ex.variables || '');
    }, 0);
  };
  return (
    <div className="pg-examples">
      <div className="graphiql-doc-explorer-title">Examples</div>
      <p className="pg-examples-intro">
        Queries an analyst starts from. Each opens in a tab of its own; edit it, run it, share it with the link button
        above.
      </p>
      <ul>
        {examples.map((ex) => (
          <li key={ex.name}>
            <button type="button" className="pg-example" data-example={ex.name} onClick={() => open(ex)}>
              <span className="pg-example-title">{ex.title}</span>
              <span className="pg-example-description">{ex.description}</span>
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

function ExamplesIcon() {
  return (
    <svg height="1em" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" aria-hidden="true">
      <path d="M4 6h16M4 12h16M4 18h10" strokeLinecap="round" />
    </svg>
  );
}

const examplesPlugin = { title: 'Examples', icon: ExamplesIcon, content: ExamplesPanel };

// ---- The header: environment, who is signed in, Share.

const VIEWER_QUERY = 'query PlaygroundViewer { viewer { kind email role keyName keyPrefix } }';

function parseHeaders(text) {
  if (!text || !text.trim()) return {};
  try {
    const h = JSON.parse(text);
    return h && typeof h === 'object' && !Array.isArray(h) ? h : {};
  } catch {
    return {};
  }
}

function useViewer(headersText) {
  const [state, setState] = useState({ status: 'loading' });
  useEffect(() => {
    let cancelled = false;
    const timer = setTimeout(async () => {
      try {
        const res = await fetcher({ query: VIEWER_QUERY, operationName: 'PlaygroundViewer' }, { headers: parseHeaders(headersText) });
        if (cancelled) return;
        if (res && res.data && res.data.viewer) {
          setState({ status: 'ok', viewer: res.data.viewer });
        } else {
          const err = (res && res.errors && res.errors[0]) || {};
          const ext = err.extensions || {};
          // Without credentials the reason is missing_credentials; a wrong,
          // revoked or expired key (or one of the other environment) says why.
          const message = ext.reason === 'missing_credentials' ? '' : err.message || 'no answer';
          setState({ status: ext.code === 'UNAUTHENTICATED' ? 'anonymous' : 'error', message });
        }
      } catch (e) {
        if (!cancelled) setState({ status: 'error', message: String((e && e.message) || e) });
      }
    }, 400);
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [headersText]);
  return state;
}

function Identity({ state }) {
  switch (state.status) {
    case 'loading':
      return <span className="pg-identity">…</span>;
    case 'ok': {
      const v = state.viewer;
      if (v.kind === 'session') {
        return (
          <span className="pg-identity" data-kind="session">
            Signed in as <strong>{v.email}</strong> ({v.role})
          </span>
        );
      }
      return (
        <span className="pg-identity" data-kind="api_key">
          API key <strong>{v.keyName}</strong> <code>{v.keyPrefix}…</code>
        </span>
      );
    }
    case 'anonymous':
      return (
        <span className="pg-identity pg-identity-none" data-kind="none" title={state.message}>
          Not signed in: {signIn ? <a href={signIn}>sign in to the console</a> : 'sign in to the console'}, or put{' '}
          <code>{'{"Authorization": "Bearer lsk_…"}'}</code> under Headers. {state.message}
        </span>
      );
    default:
      return (
        <span className="pg-identity pg-identity-none" data-kind="error">
          Could not tell who is signed in: {state.message}
        </span>
      );
  }
}

function Share() {
  const [shared, setShared] = useState(null);
  const input = useRef(null);
  const share = async () => {
    const v = currentValues();
    if (!v) return;
    const link = shareLink(v);
    if (!link) {
      setShared({ link: '', note: `Too long for a link (over ${MAX_LINK} characters): shorten the query or its variables.` });
      return;
    }
    let note = 'Link copied.';
    try {
      await navigator.clipboard.writeText(link);
    } catch {
      note = 'Copy the link:';
    }
    setShared({ link, note });
  };
  useEffect(() => {
    if (shared && shared.link && input.current) input.current.select();
  }, [shared]);
  return (
    <span className="pg-share">
      <button type="button" className="pg-share-button" onClick={share} title="Copy a link that opens this query and its variables (not the headers)">
        Share link
      </button>
      {shared && (
        <span className="pg-share-result">
          <span className="pg-share-note">{shared.note}</span>
          {shared.link && <input ref={input} className="pg-share-link" readOnly value={shared.link} aria-label="Link to this query" />}
          <button type="button" className="pg-share-close" aria-label="Close" onClick={() => setShared(null)}>
            ×
          </button>
        </span>
      )}
    </span>
  );
}

function Header({ headersText }) {
  const viewer = useViewer(headersText);
  return (
    <header className="pg-header">
      <span className="pg-title">Logistics GraphQL</span>
      {environment && (
        <span className={`pg-env pg-env-${environment}`} title="The environment this playground talks to">
          {environment}
        </span>
      )}
      {baseURL && (
        <a className="pg-base" href={baseURL + '/'}>
          {baseURL}
        </a>
      )}
      <Identity state={viewer} />
      <span className="pg-spacer" />
      <Share />
    </header>
  );
}

// ---- The page.

// Radix UI (GraphiQL's dialogs) adds <style> elements at run time. The CSP
// allows them only with the page's per-request nonce, which the server puts
// on the stylesheet <link>; react-style-singleton reads it via get-nonce.
const styleNonce = document.querySelector('link[rel="stylesheet"][nonce]');
if (styleNonce && styleNonce.nonce) setNonce(styleNonce.nonce);

// ---- Returning visits.
//
// GraphiQL (3.8) reopens its stored tabs and then looks for the tab that
// holds "the" query and variables: the link's, else the last query and
// variables it stored on their own (graphiql:query, graphiql:variables).
// No tab matching, it adds one. Those two keys do not follow the tabs: a
// visit that only looked at the first example stored its query but never
// its variables, so the next visit added a sixth tab — that example again,
// with empty variables, which failed to run ("must be defined"). So the
// stored tabs are repaired first (an example's tab without variables gets
// the example's, duplicates go), and a visit without a link asks GraphiQL
// for the stored active tab itself, which always matches.
const TABS_KEY = 'graphiql:tabState';

function tabKey(tab) {
  return (tab.query || '') + '\u0000' + (tab.variables || '').trim();
}

// resumeStoredTabs repairs the stored tabs and returns the active one, or
// null when none are stored (a first visit) or storage is unavailable.
function resumeStoredTabs() {
  let state;
  try {
    state = JSON.parse(window.localStorage.getItem(TABS_KEY) || 'null');
  } catch {
    return null;
  }
  if (!state || !Array.isArray(state.tabs) || state.tabs.length === 0) return null;
  const byQuery = new Map(examples.map((ex) => [ex.query, ex]));
  const kept = [];
  const seen = new Map(); // tabKey -> index in kept
  let active = 0;
  state.tabs.forEach((tab, i) => {
    const ex = byQuery.get(tab.query);
    if (ex && ex.variables && !(tab.variables || '').trim()) tab.variables = ex.variables;
    const key = tabKey(tab);
    if (!seen.has(key)) {
      seen.set(key, kept.length);
      kept.push(tab);
    }
    if (i === state.activeTabIndex) active = seen.get(key);
  });
  state.tabs = kept;
  state.activeTabIndex = active;
  try {
    window.localStorage.setItem(TABS_KEY, JSON.stringify(state));
  } catch {
    // Storage full or refused: GraphiQL reads what is there.
  }
  return kept[active];
}

const initial = linkParams();
const resumed = resumeStoredTabs();
// First visit (no tabs stored yet): the examples as tabs, a shared query
// first. Later visits keep the stored tabs; GraphiQL then opens a shared
// query in a tab of its own, or switches to the tab that already holds it.
const defaultTabs = examples.map((ex) => ({ query: ex.query, variables: ex.variables || null }));
if (initial.query !== undefined) defaultTabs.unshift({ query: initial.query, variables: initial.variables ?? null });
if (initial.query === undefined && resumed) {
  initial.query = resumed.query || '';
  initial.variables = resumed.variables || '';
}

function Page() {
  const [headersText, setHeadersText] = useState(initial.headers || '');
  const onEditHeaders = useCallback((h) => setHeadersText(h), []);
  return (
    <div className="pg">
      <Header headersText={headersText} />
      <div className="pg-graphiql">
        <GraphiQL
          fetcher={fetcher}
          defaultQuery={DEFAULT_QUERY}
          defaultTabs={defaultTabs.length ? defaultTabs : undefined}
          isHeadersEditorEnabled={true}
          defaultEditorToolsVisibility="variables"
          shouldPersistHeaders={false}
          plugins={[examplesPlugin]}
          onEditHeaders={onEditHeaders}
          onTabChange={syncAddress}
          onEditQuery={syncAddress}
          onEditVariables={syncAddress}
          toolbar={{ additionalContent: <EditorBridge /> }}
          {...initial}
        />
      </div>
    </div>
  );
}

createRoot(el).render(<Page />);
