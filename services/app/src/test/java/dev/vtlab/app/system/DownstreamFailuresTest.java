package dev.vtlab.app.system;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;

import com.sun.net.httpserver.HttpServer;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.NestedTestConfiguration;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** Each nested class is its own small app (pool of 1) wired to a differently broken downstream. */
class DownstreamFailuresTest {

    @Nested
    @NestedTestConfiguration(NestedTestConfiguration.EnclosingConfiguration.OVERRIDE)
    @ExtendWith(LabInfrastructure.class)
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
            "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=1",
            // Nothing listens on port 1 of the loopback interface: the connection is refused at once.
            "STUB_URL=http://127.0.0.1:1" })
    class Unreachable {

        @LocalServerPort
        int port;

        @Test
        void unreachableDownstreamIsABadGateway() {
            JsonNode problem = assertProblem(new LabHttp(port).get("/api/order-summary/1"), 502);
            assertThat(problem.get("title").asString()).isEqualTo("Downstream unavailable");
        }
    }

    @Nested
    @NestedTestConfiguration(NestedTestConfiguration.EnclosingConfiguration.OVERRIDE)
    @ExtendWith(LabInfrastructure.class)
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
            "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=1",
            // The stub answers after STUB_DELAY_MS (>= 100 ms); 50 ms is always too short.
            "DOWNSTREAM_READ_TIMEOUT_MS=50" })
    class TooSlow {

        @LocalServerPort
        int port;

        @Test
        void downstreamSlowerThanTheReadTimeoutIsAGatewayTimeout() {
            LabHttp.Response response = new LabHttp(port).get("/api/order-summary/1");
            JsonNode problem = assertProblem(response, 504);
            assertThat(problem.get("title").asString()).isEqualTo("Downstream timeout");
        }
    }

    @Nested
    @NestedTestConfiguration(NestedTestConfiguration.EnclosingConfiguration.OVERRIDE)
    @ExtendWith(LabInfrastructure.class)
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
            "VT_ENABLED=true", "CONN_MODE=released", "PATH_MODE=pinned-control", "DB_POOL_MAX=1",
            "DOWNSTREAM_READ_TIMEOUT_MS=50" })
    class TooSlowInsideNativeFrame {

        @LocalServerPort
        int port;

        /** An exception escaping an FFM upcall would kill the JVM; it must surface as the usual 504. */
        @Test
        void timeoutThrownUnderTheNativeFrameIsStillAGatewayTimeout() {
            LabHttp http = new LabHttp(port);
            JsonNode problem = assertProblem(http.get("/api/order-summary/1"), 504);
            assertThat(problem.get("title").asString()).isEqualTo("Downstream timeout");
            assertThat(http.get("/api/thread-info").status()).isEqualTo(200); // still alive
        }
    }

    @Nested
    @NestedTestConfiguration(NestedTestConfiguration.EnclosingConfiguration.OVERRIDE)
    @ExtendWith(LabInfrastructure.class)
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
            "VT_ENABLED=false", "CONN_MODE=released", "PATH_MODE=normal", "DB_POOL_MAX=1" })
    class ServerError {

        /** The real stub never fails, so a real (JDK) HTTP server stands in for a failing downstream. */
        static HttpServer failing;

        @BeforeAll
        static void startFailingDownstream() throws IOException {
            failing = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
            failing.createContext("/", exchange -> {
                byte[] body = "{\"error\":\"boom\"}".getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(500, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            failing.start();
        }

        @AfterAll
        static void stopFailingDownstream() {
            failing.stop(0);
        }

        @DynamicPropertySource
        static void pointAtFailingDownstream(DynamicPropertyRegistry registry) {
            registry.add("STUB_URL", () -> "http://127.0.0.1:" + failing.getAddress().getPort());
        }

        @LocalServerPort
        int port;

        @Test
        void downstreamServerErrorIsABadGateway() {
            JsonNode problem = assertProblem(new LabHttp(port).get("/api/order-summary/1"), 502);
            assertThat(problem.get("detail").asString()).contains("500");
        }
    }
}
