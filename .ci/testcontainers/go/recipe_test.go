package recipe

import (
	"bytes"
	"cmp" // [check]
	"context"
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os" // [check]
	"path/filepath"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// [recipe]

// startSandbox starts the gp-sandbox image with ./fixtures and ./scenarios mounted
// and answers the API's base URL; the container goes when the test ends.
func startSandbox(t *testing.T) string {
	ctx := context.Background()
	fixtures, _ := filepath.Abs("fixtures")
	scenarios, _ := filepath.Abs("scenarios")
	ctr, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image:        "gp-sandbox",
			ExposedPorts: []string{"8080/tcp"},
			Env: map[string]string{
				"GPSANDBOX_ADMIN_TOKEN":   "test-admin-token", // the port is published: guard the admin API
				"GPSANDBOX_FIXTURES":      "/fixtures",
				"GPSANDBOX_SCENARIOS_DIR": "/scenarios",
			},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.Binds = append(hc.Binds, fixtures+":/fixtures:ro", scenarios+":/scenarios:ro")
				hc.NetworkMode = container.NetworkMode(cmp.Or(os.Getenv("TC_NETWORK"), "bridge")) // [check]
			},
			WaitingFor: wait.ForHTTP("/_sandbox/health").WithPort("8080/tcp"),
		},
		Started: true,
	})
	testcontainers.CleanupContainer(t, ctr)
	if err != nil {
		t.Fatal(err)
	}
	endpoint, err := ctr.PortEndpoint(ctx, "8080/tcp", "http")
	if err != nil {
		t.Fatal(err)
	}
	return endpoint + "/ucp"
}

// [/recipe]

func call(t *testing.T, url string, body any, headers map[string]string) map[string]any {
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(raw))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GP-Version", "2021-03-22")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != 200 {
		t.Fatalf("%s: %d %v %v", url, resp.StatusCode, out, err)
	}
	return out
}

func token(t *testing.T, base string) string {
	nonce := time.Now().UTC().Format(time.RFC3339Nano)
	sum := sha512.Sum512([]byte(nonce + "SandboxAppKey001"))
	body := call(t, base+"/accesstoken", map[string]string{
		"app_id": "SandboxPartnerAppId0000000000001", "nonce": nonce,
		"secret": hex.EncodeToString(sum[:]), "grant_type": "client_credentials",
	}, nil)
	return body["token"].(string)
}

var sale = map[string]any{
	"channel": "CP", "type": "SALE", "capture_mode": "AUTO", "amount": "1000", "currency": "USD",
	"payment_method": map[string]any{
		"entry_mode": "SWIPE",
		"card":       map[string]string{"track": "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"},
	},
}

func TestSandboxContainer(t *testing.T) {
	base := startSandbox(t)
	auth := map[string]string{"Authorization": "Bearer " + token(t, base)}
	if got := call(t, base+"/transactions", sale, auth); got["status"] != "CAPTURED" {
		t.Errorf("sale: %v", got)
	}
	// A scenario from the mounted folder declines it.
	auth["X-Sandbox-Scenario"] = "testcontainers-decline"
	if got := call(t, base+"/transactions", sale, auth); got["status"] != "DECLINED" {
		t.Errorf("sale under the scenario: %v", got)
	}
}
