// Package sandbox is the domain of the GP API sandbox, on the standard library only:
// the records (apps, merchants, transactions, orders, tokens), the GP error catalogue,
// the Service that executes each operation in one store transaction (access tokens,
// adjustments, orders, card-present transactions, and the admin reads and writes), the
// order lifecycle and its notification outbox, the sandbox clock and the id sources.
//
// It knows nothing of HTTP, YAML or the database engine: package api serves it over
// HTTP, package store implements its Store interface, package yamlfile reads its
// fixtures, and package app wires them together.
package sandbox
