package dev.vtlab.reactive.system;

import dev.vtlab.reactive.support.HeldConnections;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** One connection and the app's shortest pool timeout. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "DB_POOL_MAX=1", "DB_POOL_TIMEOUT_MS=250" })
class PoolExhaustionTest {

    @LocalServerPort
    int port;

    @Autowired
    ConnectionPool pool;

    @Test
    void exhaustedPoolIsServiceUnavailableWithRetryAfter() {
        LabHttp http = new LabHttp(port);
        try (HeldConnections held = HeldConnections.take(pool, 1)) {
            long started = System.nanoTime();
            LabHttp.Response response = http.get("/api/order-summary/1");
            long waitedMs = (System.nanoTime() - started) / 1_000_000;

            JsonNode problem = assertProblem(response, 503);
            assertThat(problem.get("title").asString()).isEqualTo("Database pool exhausted");
            assertThat(response.retryAfter()).isEqualTo("1");
            // One acquire timeout, not two: Boot's default acquire retry is switched off.
            assertThat(waitedMs).as("wait before the 503").isGreaterThanOrEqualTo(200L).isLessThan(500L);
        }
        assertThat(http.get("/api/order-summary/1").status()).isEqualTo(200);
    }
}
