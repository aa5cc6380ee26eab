package graph

// SlowGrace is slowGrace, for the subscription tests.
const SlowGrace = slowGrace
