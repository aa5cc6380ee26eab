package orderread

// Pipelined is pipelined, for tests.
var Pipelined = pipelined

// SQLiteOwn is sqliteOwn, for tests.
var SQLiteOwn = sqliteOwn
