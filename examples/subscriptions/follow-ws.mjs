// Follow orderChanged over a WebSocket (graphql-ws) from `after` on, through
// server restarts and dropped connections: whenever the subscription ends
// without the app asking, subscribe again from the last sequence processed.
// Nothing is lost and nothing arrives twice: the server replays from the log.
import { createClient } from 'graphql-ws';

const query = `subscription ($after: Int) {
  orderChanged(after: $after) { sequence type order { id status } }
}`;

// Endings that subscribing again does not cure.
const final = new Set(['UNAUTHENTICATED', 'FORBIDDEN', 'BAD_USER_INPUT']);

export function followOrdersWS({ url, key, after, onChange, onResume = () => {}, onFatal = console.error, webSocketImpl }) {
  let last = after; // the last sequence processed: persist it to survive a reload
  let stopped = false;
  let unsubscribe = () => {};
  const client = createClient({
    url,
    webSocketImpl, // Node 20: the `ws` package; browsers have WebSocket
    connectionParams: { Authorization: 'Bearer ' + key },
    // No retries of its own: graphql-ws would send the subscription again as
    // it was first sent, with a stale `after:`. This loop resubscribes instead.
    retryAttempts: 0,
  });
  function ended(why) {
    const code = Array.isArray(why) ? why[0]?.extensions?.code : undefined;
    const close = why?.code; // a CloseEvent's code: 4401 bad key, 4403 revoked
    if (final.has(code) || close === 4401 || close === 4403) {
      stopped = true;
      onFatal(why);
    } else if (!stopped) {
      onResume(code ?? 'CONNECTION_LOST', last); // SHUTTING_DOWN: the server restarts
      setTimeout(subscribe, 1000);
    }
  }
  function subscribe() {
    let errors; // a result with errors is the last of its subscription
    unsubscribe = client.subscribe({ query, variables: { after: last } }, {
      next: (result) => {
        if (result.data) {
          last = result.data.orderChanged.sequence;
          onChange(result.data.orderChanged);
        }
        if (result.errors) errors = result.errors;
      },
      error: (err) => ended(err), // the server's error message, or the socket's close or failure
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
