package ui_test

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/testrun"
)

// The browser tests share one build of the binary, removed after them.
func TestMain(m *testing.M) { testrun.Main(m) }
