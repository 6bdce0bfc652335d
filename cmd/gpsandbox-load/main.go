// Command gpsandbox-load drives a mixed workload against a running sandbox and reports
// throughput, latency percentiles (over the run and per -window), answers by status and
// error code, and the server's resident memory and goroutines.
//
//	gpsandbox-load -url http://127.0.0.1:8080 -duration 30s -conns 64 -pid $(pgrep gpsandbox)
//
// The mix: access tokens, adjustments with and without idempotency keys, device orders
// (placed, with a status_url on a listener of its own, and FOR_REVIEW), card-present
// sales, authorizations, reads and refunds, and a share of scenario-driven requests.
// Answers a scenario scripted (they carry X-Sandbox-Rule), and the 404 of a refund
// whose sale a -reset-every reset wiped, are counted apart from unscripted errors;
// with -fail-on-errors any unscripted error makes the run fail, which is what the
// soak checks.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"
)

type options struct {
	url, appID, appKey, merchant, txn, scenario, adminToken string
	conns                                                   int
	duration, resetEvery, sampleEvery, window               time.Duration
	pid                                                     int
	scenarioShare                                           float64
	mix                                                     string
	requests                                                int64
	rate                                                    int
	notify, failOnErrors                                    bool
}

func main() {
	var o options
	flag.StringVar(&o.url, "url", "http://127.0.0.1:8080", "sandbox base URL")
	flag.IntVar(&o.conns, "conns", 64, "concurrent connections")
	flag.DurationVar(&o.duration, "duration", 30*time.Second, "how long to run (bounded: at most 1h)")
	flag.Int64Var(&o.requests, "requests", 0, "stop after this many requests (0: run for -duration)")
	flag.IntVar(&o.rate, "rate", 0, "requests per second in all (0: as fast as the connections go)")
	flag.IntVar(&o.pid, "pid", 0, "sandbox process id, to report its RSS (Linux)")
	flag.StringVar(&o.adminToken, "admin-token", "", "the sandbox's --admin-token, for -reset-every and the goroutine count")
	flag.StringVar(&o.appID, "app", "SandboxPartnerAppId0000000000001", "app id")
	flag.StringVar(&o.appKey, "key", "SandboxAppKey001", "app key")
	flag.StringVar(&o.merchant, "merchant", "MER_00000000000000000000000000000001", "merchant for orders")
	flag.StringVar(&o.txn, "transaction", "TRN_CapturedSale000000000000000001", "transaction to adjust")
	flag.StringVar(&o.scenario, "scenario", "flaky-then-ok", "scenario named by the scenario share")
	flag.Float64Var(&o.scenarioShare, "scenario-share", 0.05, "share of requests sent with X-Sandbox-Scenario")
	flag.StringVar(&o.mix, "mix", "mixed", "workload: mixed, adjust (adjustments without keys) or adjust-key (each with a new key)")
	flag.BoolVar(&o.notify, "notify", false, "placed orders carry a status_url on a local listener; report notifications received")
	flag.DurationVar(&o.resetEvery, "reset-every", 0, "POST /_sandbox/reset this often, so state stays bounded on long runs (0: never)")
	flag.DurationVar(&o.sampleEvery, "sample-every", 0, "print RSS and goroutines this often during the run (0: only at start and end)")
	flag.DurationVar(&o.window, "window", 10*time.Second, "also report latency percentiles per window of this length (0: not)")
	flag.BoolVar(&o.failOnErrors, "fail-on-errors", false, "exit 1 when any answer is an unscripted error or a transport failure")
	flag.Parse()
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "gpsandbox-load:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := runLoad(ctx, o, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gpsandbox-load:", err)
		os.Exit(1)
	}
	rep.print(os.Stdout, o)
	if o.failOnErrors && rep.unscripted() > 0 {
		fmt.Fprintf(os.Stderr, "gpsandbox-load: %d unscripted errors\n", rep.unscripted())
		os.Exit(1)
	}
}

func (o options) check() error {
	switch {
	case o.duration <= 0 || o.duration > time.Hour:
		return fmt.Errorf("-duration: want 1ns..1h")
	case o.conns < 1 || o.conns > 10000:
		return fmt.Errorf("-conns: want 1..10000")
	case o.mix != "mixed" && o.mix != "adjust" && o.mix != "adjust-key":
		return fmt.Errorf("-mix: want mixed, adjust or adjust-key")
	case o.rate < 0 || o.scenarioShare < 0 || o.scenarioShare > 0.5:
		return fmt.Errorf("-rate >= 0, -scenario-share 0..0.5")
	}
	return nil
}
