// Runs the client against a server: node dist/main.js <base address> <API key>.
// It prints what it read as one JSON object.
import { available, hubCodes, itemsByStatus, hubsCSV, lineQuantities, logistics, sequencesAfter, submitOrder } from "./client.js";

declare const process: { argv: string[]; exitCode?: number };

const [base, key] = process.argv.slice(2);
if (base === undefined || key === undefined) {
  throw new Error("usage: node dist/main.js <base address> <API key>");
}
const client = logistics(base, key);
const codes = await hubCodes(client);
const free = await available(client, "BOLT-M8", "AMS1");
const order = await submitOrder(client, "AMS1", "BOLT-M8", 2);
const sequences = await sequencesAfter(client, 0);
const byStatus = await itemsByStatus(client);
const csv = await hubsCSV(client);
console.log(JSON.stringify({
  codes, free, status: order.status, revision: order.revision, lines: lineQuantities(order),
  events: sequences.length, byStatus, csvHeader: csv.split("\r\n")[0],
}));
