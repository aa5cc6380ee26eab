// Runs graphql-http's audit of the GraphQL-over-HTTP specification against
// the server at process.argv[2], with the Authorization header in
// AUDIT_AUTHORIZATION, and prints one JSON object: the number of audits,
// how many passed, and every result that did not.
import { auditServer } from 'graphql-http';

const url = process.argv[2];
const authorization = process.env.AUDIT_AUTHORIZATION || '';
const fetchFn = (input, init = {}) => {
  const headers = new Headers(init.headers || {});
  if (authorization) headers.set('authorization', authorization);
  return fetch(input, { ...init, headers });
};

const results = await auditServer({ url, fetchFn });
const failed = [];
for (const r of results) {
  if (r.status !== 'ok') {
    let body = '';
    try {
      body = r.response ? await r.response.text() : '';
    } catch {}
    failed.push({ id: r.id, name: r.name, status: r.status, reason: r.reason, body: body.slice(0, 300) });
  }
}
console.log(JSON.stringify({ total: results.length, ok: results.length - failed.length, failed }));
