package orderread

// Pipelined is pipelined, for tests.
var Pipelined = pipelined
