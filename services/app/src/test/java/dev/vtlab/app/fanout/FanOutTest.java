package dev.vtlab.app.fanout;

import java.util.stream.IntStream;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * GET /api/fanout/{id}: one lookup and two downstream calls of STUB_DELAY_MS each. Sequentially a request
 * can never beat the sum of the two calls; structured, the fastest of a few warm requests beats it.
 */
class FanOutTest {

    @Nested
    @ExtendWith(LabInfrastructure.class)
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
            "VT_ENABLED=false", "FANOUT_MODE=sequential", "CONN_MODE=released", "HIKARI_MAX_POOL=3" })
    class Sequential {

        @LocalServerPort
        int port;

        @Test
        void takesAtLeastTheSumOfBothCalls() {
            LabHttp http = new LabHttp(port);
            long fastest = fastestOfFive(http);
            assertThat(fastest).isGreaterThanOrEqualTo(2L * LabInfrastructure.stubDelayMs());
            assertDocument(http.get("/api/fanout/41").json(), 41, "sequential");
        }

        @Test
        void failuresKeepTheirProblemDetails() {
            LabHttp http = new LabHttp(port);
            assertProblem(http.get("/api/fanout/999999999"), 404);
            assertProblem(http.get("/api/fanout/abc"), 400);
            assertThat(http.get("/api/runtime-info").json().get("fanOutMode").asString()).isEqualTo("sequential");
        }
    }

    @Nested
    @ExtendWith(LabInfrastructure.class)
    @SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
            "VT_ENABLED=true", "FANOUT_MODE=structured", "CONN_MODE=released", "HIKARI_MAX_POOL=3" })
    class Structured {

        @LocalServerPort
        int port;

        @Test
        void takesLessThanTheSumOfBothCalls() {
            LabHttp http = new LabHttp(port);
            long fastest = fastestOfFive(http);
            // Concurrent calls take ~one delay; 1.5 delays leaves room for a slow machine, not for a sum.
            assertThat(fastest).isLessThan(3L * LabInfrastructure.stubDelayMs() / 2);
            assertDocument(http.get("/api/fanout/42").json(), 42, "structured");
        }

        @Test
        void aMissingOrderIsStill404AndBadIdsAre400() {
            LabHttp http = new LabHttp(port);
            assertProblem(http.get("/api/fanout/999999999"), 404);
            assertProblem(http.get("/api/fanout/0"), 400);
            assertThat(http.get("/api/runtime-info").json().get("fanOutMode").asString()).isEqualTo("structured");
        }
    }

    private static long fastestOfFive(LabHttp http) {
        return IntStream.range(0, 5).mapToLong(i -> {
            long started = System.nanoTime();
            LabHttp.Response response = http.get("/api/fanout/" + (10 + i));
            assertThat(response.status()).as(response.body()).isEqualTo(200);
            return (System.nanoTime() - started) / 1_000_000;
        }).min().orElseThrow();
    }

    private static void assertDocument(JsonNode json, long id, String fanOut) {
        assertThat(json.get("order").get("id").asLong()).isEqualTo(id);
        assertThat(json.get("customer").get("id").asLong()).isPositive();
        assertThat(json.get("downstream")).hasSize(2);
        json.get("downstream").forEach(answer -> assertThat(answer.get("id").asLong()).isEqualTo(id));
        assertThat(json.get("fanOut").asString()).isEqualTo(fanOut);
    }
}
