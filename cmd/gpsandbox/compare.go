package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/gp-sandbox/gp-sandbox/cmd/gpsandbox/internal/compare"
	"github.com/gp-sandbox/gp-sandbox/fixtures"
	"github.com/gp-sandbox/gp-sandbox/sandbox/app"
)

// compareTimeout bounds one request: the real API answers in well under a second.
const compareTimeout = 30 * time.Second

// differError is a compare run that found differences: exit status 1, the report
// already written.
type differError int

func (e differError) Error() string { return fmt.Sprintf("compare: %d steps differ", int(e)) }

// compareCmd is "gpsandbox compare": the fixed flows against a GP API and a sandbox.
// The app key is read from --app-key or GP_APP_KEY after parsing, never as a flag
// default, so that -h does not print it.
func compareCmd(ctx context.Context, args []string, e env) error {
	fs := newFlagSet("compare", e.stderr)
	against := fs.String("against", "", "base URL of the GP API to compare, ending in /ucp (required), e.g. https://apis.sandbox.globalpay.com/ucp")
	appID := fs.String("app-id", "", "app id on --against (else GP_APP_ID)")
	appKey := fs.String("app-key", "", "app key on --against (else GP_APP_KEY; prefer the variable: flags stay in shell history)")
	flows := fs.String("flows", "", "comma-separated flows to run (default all): "+strings.Join(compare.Names(), ","))
	local := fs.String("local", "", "base URL of a running sandbox, ending in /ucp (default: one started in-process with the default fixtures)")
	localID := fs.String("local-app-id", fixtures.DefaultAppID, "app id on the local sandbox")
	localKey := fs.String("local-app-key", fixtures.DefaultAppKey, "app key on the local sandbox")
	asJSON := fs.Bool("json", false, "write the report as JSON")
	if err := parseFlags(fs, args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return err
	}
	if *appID == "" {
		*appID = e.getenv("GP_APP_ID")
	}
	if *appKey == "" {
		*appKey = e.getenv("GP_APP_KEY")
	}
	switch {
	case *against == "":
		return usageError("compare: --against URL is required")
	case *appID == "" || *appKey == "":
		return usageError("compare: give the app id and key of --against (--app-id/--app-key, or GP_APP_ID/GP_APP_KEY)")
	}
	var names []string
	if *flows != "" {
		names = strings.Split(*flows, ",")
	}
	client := &http.Client{Timeout: compareTimeout}
	localURL := *local
	if localURL == "" {
		url, stop, err := startLocal(ctx)
		if err != nil {
			return err
		}
		defer stop()
		localURL = url
	}
	rep, err := compare.Run(ctx,
		compare.Side{Name: "against", BaseURL: *against, AppID: *appID, AppKey: *appKey, Client: client},
		compare.Side{Name: "local", BaseURL: localURL, AppID: *localID, AppKey: *localKey, Client: client},
		names)
	if err != nil {
		return usageError("compare: " + err.Error())
	}
	if *asJSON {
		err = rep.WriteJSON(e.stdout)
	} else {
		err = rep.WriteText(e.stdout)
	}
	if err != nil {
		return err
	}
	if rep.Differences > 0 {
		return differError(rep.Differences)
	}
	return nil
}

// startLocal starts a sandbox in-process on a loopback port: an in-memory store, the
// embedded default fixtures and built-in scenarios, no global scenario. It answers the
// API's base URL and a function that stops it.
func startLocal(ctx context.Context) (string, func(), error) {
	a, err := app.Open(app.Config{})
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		a.Close()
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		a.Run(ctx, ln)
	}()
	return "http://" + ln.Addr().String() + "/ucp", func() {
		cancel()
		<-done
		a.Close()
	}, nil
}
