package dev.vtlab.app.system;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** One connection, held across the downstream call, and the shortest pool timeout Hikari accepts. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=false", "CONN_MODE=held", "PATH_MODE=normal", "DB_POOL_MAX=1", "DB_POOL_TIMEOUT_MS=250" })
class PoolExhaustionTest {

    @LocalServerPort
    int port;

    @Autowired
    DataSource dataSource;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void requestWaitingLongerThanThePoolTimeoutGets503WithRetryAfter() {
        // Each held request keeps the only connection for about STUB_DELAY_MS (>= 100 ms), so of four
        // simultaneous requests the later ones wait more than 250 ms for it.
        List<CompletableFuture<LabHttp.Response>> inFlight =
                IntStream.rangeClosed(1, 4).mapToObj(i -> http.getAsync("/api/order-summary/" + i)).toList();
        List<LabHttp.Response> responses = inFlight.stream().map(CompletableFuture::join).toList();

        assertThat(responses).extracting(LabHttp.Response::status).containsOnly(200, 503).contains(200, 503);
        for (LabHttp.Response response : responses) {
            if (response.status() == 503) {
                assertProblem(response, 503);
                assertThat(response.retryAfter()).isEqualTo("1");
            }
        }
    }

    @Test
    void exhaustedPoolIsServiceUnavailableNotAServerError() throws Exception {
        // Deterministic variant: the test itself holds the only connection.
        try (Connection held = dataSource.getConnection()) {
            LabHttp.Response response = http.get("/api/order-summary/1");

            assertProblem(response, 503);
            assertThat(response.retryAfter()).isEqualTo("1");
            assertThat(held.isValid(1)).isTrue();
        }
        assertThat(http.get("/api/order-summary/1").status()).isEqualTo(200);
    }
}
