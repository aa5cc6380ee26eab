package service

// ExplainItemUpdate lets the tests reach what a lost conditional update
// answers when its reason is gone by the time it is read again.
var ExplainItemUpdate = (*Service).explainItemUpdate
