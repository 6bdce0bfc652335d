import hashlib
import json
import os
import unittest
import urllib.request
from datetime import datetime, timezone

from testcontainers.core.container import DockerContainer
from testcontainers.core.wait_strategies import HttpWaitStrategy

TRACK = "%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?"
SALE = {
    "channel": "CP", "type": "SALE", "capture_mode": "AUTO", "amount": "1000", "currency": "USD",
    "payment_method": {"entry_mode": "SWIPE", "card": {"track": TRACK}},
}


class SandboxContainerTest(unittest.TestCase):
    # [recipe]
    @classmethod
    def setUpClass(cls):
        cls.sandbox = (
            DockerContainer("gp-sandbox")
            .with_exposed_ports(8080)
            .with_kwargs(network_mode=os.environ.get("TC_NETWORK", "bridge"))  # [check]
            .with_env("GPSANDBOX_ADMIN_TOKEN", "test-admin-token")  # the port is published: guard the admin API
            .with_env("GPSANDBOX_FIXTURES", "/fixtures")
            .with_env("GPSANDBOX_SCENARIOS_DIR", "/scenarios")
            .with_volume_mapping(os.path.abspath("fixtures"), "/fixtures", "ro")
            .with_volume_mapping(os.path.abspath("scenarios"), "/scenarios", "ro")
            .waiting_for(HttpWaitStrategy(8080, "/_sandbox/health").for_status_code(200))
        )
        cls.sandbox.start()
        host, port = cls.sandbox.get_container_host_ip(), cls.sandbox.get_exposed_port(8080)
        cls.base_url = f"http://{host}:{port}/ucp"

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.stop()
    # [/recipe]

    def call(self, path, body, headers=None):
        req = urllib.request.Request(
            self.base_url + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", "X-GP-Version": "2021-03-22", **(headers or {})},
        )
        with urllib.request.urlopen(req) as res:
            return json.load(res)

    def token(self):
        nonce = datetime.now(timezone.utc).isoformat()
        secret = hashlib.sha512((nonce + "SandboxAppKey001").encode()).hexdigest()
        return self.call("/accesstoken", {
            "app_id": "SandboxPartnerAppId0000000000001", "nonce": nonce, "secret": secret,
            "grant_type": "client_credentials",
        })["token"]

    def test_sale_is_captured(self):
        sale = self.call("/transactions", SALE, {"Authorization": "Bearer " + self.token()})
        self.assertEqual(sale["status"], "CAPTURED")

    def test_mounted_scenario_declines(self):
        headers = {"Authorization": "Bearer " + self.token(), "X-Sandbox-Scenario": "testcontainers-decline"}
        sale = self.call("/transactions", SALE, headers)
        self.assertEqual(sale["status"], "DECLINED")


if __name__ == "__main__":
    unittest.main()
