// Package view owns how every resource is read for an answer and rendered
// as JSON — for REST, for GraphQL's hand-read paths and for the objects
// events carry: the statements written and scanned by hand (orders, items,
// reference columns), the timestamps and placeholders they need, and the
// JSON writers of the representations.
//
// It sits below the transports and the service: rest, graph and service
// import it; it imports none of them (docs/design/0014-the-read-side.md).
package view
