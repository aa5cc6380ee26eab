// A typed client of the Logistics Service's REST API: the types come from
// the served OpenAPI document (npm run generate: openapi-typescript), the
// requests from openapi-fetch. Nothing here casts: a list's data is its
// JSON page, the members a representation always has are not optional, an
// export is text.
import createClient from "openapi-fetch";
import type { components, paths, webhooks } from "./generated/schema.js";

export type Client = ReturnType<typeof createClient<paths>>;
export type Hub = components["schemas"]["Hub"];
export type Order = components["schemas"]["Order"];
export type Problem = components["schemas"]["Problem"];

export function logistics(baseUrl: string, key: string): Client {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
}

function fail(error: Problem): never {
  throw new Error(`${error.status} ${error.code}: ${error.detail}`);
}

// Every hub's code, page after page (next_cursor until has_more is false).
export async function hubCodes(client: Client): Promise<string[]> {
  const codes: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = cursor === undefined ? { limit: 2 } : { limit: 2, cursor };
    const { data, error } = await client.GET("/v1/hubs", { params: { query } });
    if (error) fail(error);
    codes.push(...data.data.map((h: Hub) => h.code));
    if (!data.has_more || data.next_cursor === null) return codes;
    cursor = data.next_cursor;
  }
}

// The free stock of a SKU at a hub (code), summed over its items.
export async function available(client: Client, sku: string, hub: string): Promise<number> {
  const { data, error } = await client.GET("/v1/items", { params: { query: { sku, hub, limit: 100 } } });
  if (error) fail(error);
  return data.data.reduce((sum, item) => sum + item.available_quantity, 0);
}

// Creates an order of one line and submits it, the submit conditional on
// the revision the creation answered (revision in the body, no If-Match).
export async function submitOrder(client: Client, hub: string, sku: string, quantity: number): Promise<Order> {
  const created = await client.POST("/v1/orders", { body: { hub, lines: [{ sku, quantity }] } });
  if (created.error) fail(created.error);
  const order: Order = created.data;
  const { data, error } = await client.POST("/v1/orders/{id}/transitions", {
    params: { path: { id: order.id } },
    body: { transition: "submit", revision: order.revision },
  });
  if (error) fail(error);
  return data;
}

// The quantities of an order's lines.
export function lineQuantities(order: Order): number[] {
  return order.lines.map((line) => line.quantity);
}

// The sequence numbers of the first page of events after a sequence.
export async function sequencesAfter(client: Client, after: number): Promise<number[]> {
  const { data, error } = await client.GET("/v1/events", { params: { query: { after, limit: 100 } } });
  if (error) fail(error);
  return data.data.map((event) => event.sequence);
}

// How many items there are of each status: an aggregate's data is JSON too
// (its CSV and NDJSON are GET /v1/items/aggregate/export).
export async function itemsByStatus(client: Client): Promise<Record<string, number>> {
  const { data, error } = await client.GET("/v1/items/aggregate", { params: { query: { group_by: "status" } } });
  if (error) fail(error);
  const out: Record<string, number> = {};
  for (const group of data.data) {
    out[String(group.keys["status"])] = group.count;
  }
  return out;
}

// Every hub as CSV: the export operation's answer is text.
export async function hubsCSV(client: Client): Promise<string> {
  const { data, error } = await client.GET("/v1/hubs/export", { params: { query: { format: "csv" } }, parseAs: "text" });
  if (error) fail(error);
  return data;
}

// A webhook body (here webhook.test) has the envelope of every event.
export type TestEvent = webhooks["webhook.test"]["post"]["requestBody"]["content"]["application/json"];
export function describe(event: TestEvent): string {
  return `${event.type} #${event.sequence} at ${event.created_at} for ${event.data.object.endpoint_id}`;
}
