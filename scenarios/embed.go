// Package scenarios holds the sandbox's built-in scenario files: the outcomes a test
// can switch on by name without writing YAML of its own (see the README's table).
//
// They are embedded so that the binary needs nothing beside it. Started with
// --scenarios DIR, the sandbox reads the *.yaml and *.yml files at the root of DIR
// instead of these (not in addition to them); copy this directory as a starting point.
package scenarios

import "embed"

// FS holds the built-in scenario files at its root, ready for yamlfile.LoadScenarios.
//
//go:embed *.yaml
var FS embed.FS
