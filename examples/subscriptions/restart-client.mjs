// The restart test's driver (subscriptions_restart_test.go), not an example:
//   node restart-client.mjs ws|sse URL KEY AFTER
// follows orders with the example of that transport and prints one JSON line
// per change, per resubscription and per fatal ending; it stops when its
// standard input closes.
import WebSocket from 'ws';
import { followOrdersWS } from './follow-ws.mjs';
import { followOrdersSSE } from './follow-sse.mjs';

const [transport, url, key, after] = process.argv.slice(2);
const print = (v) => process.stdout.write(JSON.stringify(v) + '\n');
const options = {
  url,
  key,
  after: Number(after),
  onChange: (c) => print({ seq: c.sequence, type: c.type, order: c.order?.id ?? null }),
  onResume: (code, last) => print({ resume: code, after: last }),
  onFatal: (why) => {
    const closed = typeof why?.code === 'number' ? `close ${why.code} ${why.reason}` : undefined;
    print({ fatal: closed ?? JSON.stringify(why, Object.getOwnPropertyNames(why ?? {})) });
    process.exit(1);
  },
};
const stop = transport === 'ws'
  ? followOrdersWS({ ...options, webSocketImpl: WebSocket })
  : followOrdersSSE(options);
print({ started: transport });
process.stdin.on('end', () => {
  stop();
  process.exit(0);
});
process.stdin.resume();
