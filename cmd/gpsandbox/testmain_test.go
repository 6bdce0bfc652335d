package main

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// The tests that run the built binary share one build, removed after them.
func TestMain(m *testing.M) { testrun.Main(m) }
