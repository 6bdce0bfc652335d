package api_test

import (
	"testing"

	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
	"github.com/gp-sandbox/gp-sandbox/sandbox/internal/apitest"
)

// sandboxEnv is the test sandbox of package apitest, with this package's own helpers.
type sandboxEnv struct{ *apitest.Env }

func mustSandbox(t testing.TB, opts ...func(*app.Config)) *sandboxEnv {
	return &sandboxEnv{apitest.New(t, opts...)}
}

func mustSandboxAt(t testing.TB, dbPath string, opts ...func(*app.Config)) *sandboxEnv {
	return &sandboxEnv{apitest.NewAt(t, dbPath, opts...)}
}

func mustSandboxWith(t testing.TB, o apitest.Options) *sandboxEnv {
	return &sandboxEnv{apitest.NewWith(t, o)}
}
