// Follow orderChanged over Server-Sent Events (graphql-sse) from `after` on,
// through server restarts and dropped connections: whenever the stream ends
// without the app asking, subscribe again from the last sequence processed.
// The server ends a stream with a last `next` whose errors carry the code
// (SHUTTING_DOWN at a restart), then `complete`: graphql-sse hands the first
// to `next` and the second to `complete`; `error` gets network failures.
import { createClient } from 'graphql-sse';

const query = `subscription ($after: Int) {
  orderChanged(after: $after) { sequence type order { id status } }
}`;

// Endings that subscribing again does not cure.
const final = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT']);

export function followOrdersSSE({ url, key, after, onChange, onResume = () => {}, onFatal = console.error }) {
  let last = after; // the last sequence processed: persist it to survive a reload
  let stopped = false;
  let unsubscribe = () => {};
  const client = createClient({
    url,
    headers: { Authorization: 'Bearer ' + key },
    // No retries of its own: graphql-sse would send the request again as it
    // was first sent, with a stale `after:`. This loop resubscribes instead.
    retryAttempts: 0,
  });
  function ended(why) {
    const code = Array.isArray(why) ? why[0]?.extensions?.code : undefined;
    const status = why?.response?.status; // a NetworkError's HTTP answer
    if (final.has(code) || status === 401 || status === 403) {
      stopped = true;
      onFatal(why);
    } else if (!stopped) {
      onResume(code ?? 'CONNECTION_LOST', last); // SHUTTING_DOWN: the server restarts
      setTimeout(subscribe, 1000);
    }
  }
  function subscribe() {
    let errors; // a result with errors is the last of its stream
    unsubscribe = client.subscribe({ query, variables: { after: last } }, {
      next: (result) => {
        if (result.data) {
          last = result.data.orderChanged.sequence;
          onChange(result.data.orderChanged);
        }
        if (result.errors) errors = result.errors;
      },
      error: (err) => ended(err),
      complete: () => ended(errors),
    });
  }
  subscribe();
  return () => {
    stopped = true;
    unsubscribe();
    client.dispose();
  };
}
