package sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.BindMode;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

class SandboxContainerTest {
  // [recipe]
  static GenericContainer<?> sandbox;
  static String baseUrl;

  // [/recipe]
  static final String SALE = "{\"channel\":\"CP\",\"type\":\"SALE\",\"capture_mode\":\"AUTO\",\"amount\":\"1000\",\"currency\":\"USD\","
      + "\"payment_method\":{\"entry_mode\":\"SWIPE\",\"card\":{\"track\":\"%B4012002000060016^VI TEST CREDIT^251210118039000000000396?;4012002000060016=25121011803939600000?\"}}}";

  // [recipe]
  @BeforeAll
  static void start() {
    sandbox = new GenericContainer<>(DockerImageName.parse("gp-sandbox"))
        .withExposedPorts(8080)
        .withNetworkMode(System.getenv().getOrDefault("TC_NETWORK", "bridge")) // [check]
        .withEnv("GPSANDBOX_ADMIN_TOKEN", "test-admin-token") // the port is published: guard the admin API
        .withEnv("GPSANDBOX_FIXTURES", "/fixtures")
        .withEnv("GPSANDBOX_SCENARIOS_DIR", "/scenarios")
        .withFileSystemBind(Path.of("fixtures").toAbsolutePath().toString(), "/fixtures", BindMode.READ_ONLY)
        .withFileSystemBind(Path.of("scenarios").toAbsolutePath().toString(), "/scenarios", BindMode.READ_ONLY)
        .waitingFor(Wait.forHttp("/_sandbox/health").forPort(8080).forStatusCode(200));
    sandbox.start();
    baseUrl = "http://" + sandbox.getHost() + ":" + sandbox.getMappedPort(8080) + "/ucp";
  }

  @AfterAll
  static void stop() {
    sandbox.stop();
  }
  // [/recipe]

  static String post(String path, String body, String... headers) throws Exception {
    HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .header("Content-Type", "application/json")
        .header("X-GP-Version", "2021-03-22")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i < headers.length; i += 2) {
      req.header(headers[i], headers[i + 1]);
    }
    HttpResponse<String> res = HttpClient.newHttpClient().send(req.build(), HttpResponse.BodyHandlers.ofString());
    assertEquals(200, res.statusCode(), res.body());
    return res.body();
  }

  static String member(String json, String name) {
    Matcher m = Pattern.compile("\"" + name + "\":\"([^\"]*)\"").matcher(json);
    assertTrue(m.find(), name + " in " + json);
    return m.group(1);
  }

  static String token() throws Exception {
    String nonce = Instant.now().toString();
    byte[] sum = MessageDigest.getInstance("SHA-512").digest((nonce + "SandboxAppKey001").getBytes(StandardCharsets.UTF_8));
    String body = "{\"app_id\":\"SandboxPartnerAppId0000000000001\",\"nonce\":\"" + nonce + "\",\"secret\":\""
        + HexFormat.of().formatHex(sum) + "\",\"grant_type\":\"client_credentials\"}";
    return member(post("/accesstoken", body), "token");
  }

  @Test
  void swipedSaleIsCaptured() throws Exception {
    String sale = post("/transactions", SALE, "Authorization", "Bearer " + token());
    assertEquals("CAPTURED", member(sale, "status"));
  }

  @Test
  void mountedScenarioDeclines() throws Exception {
    String sale = post("/transactions", SALE, "Authorization", "Bearer " + token(), "X-Sandbox-Scenario", "testcontainers-decline");
    assertEquals("DECLINED", member(sale, "status"));
  }
}
