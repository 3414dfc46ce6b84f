package dev.vtlab.app.pool;

import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import javax.sql.DataSource;

import dev.vtlab.testsupport.BuildVersions;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import io.agroal.api.AgroalDataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/** POOL_IMPL=agroal: the same sizes, the same answers, the same pool gauges and 503 as with Hikari. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "VT_ENABLED=true", "POOL_IMPL=agroal", "CONN_MODE=held", "PATH_MODE=normal", "DB_POOL_MAX=2",
        "DB_POOL_TIMEOUT_MS=1000" })
class AgroalPoolTest {

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
    void runtimeInfoReportsTheLiveAgroalPool() throws Exception {
        JsonNode pool = http.get("/api/runtime-info").json().get("pool");
        assertThat(pool.get("implementation").asString()).isEqualTo("Agroal");
        assertThat(pool.get("version").asString()).isEqualTo(BuildVersions.agroal());
        assertThat(pool.get("maximumPoolSize").asInt()).isEqualTo(2);
        assertThat(pool.get("connectionTimeoutMs").asLong()).isEqualTo(1000);
        assertThat(dataSource.isWrapperFor(AgroalDataSource.class)).isTrue();
        assertThat(dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)).isFalse();
    }

    @Test
    void heldConnectionsQueueTheRestAndTheGaugesShowIt() {
        double acquiredBefore = gauge(http.get("/actuator/prometheus").body(), "agroal_connections_acquire_total");
        // Six held requests on two connections: four wait, and the gauges say so while they do.
        List<CompletableFuture<LabHttp.Response>> inFlight =
                IntStream.rangeClosed(1, 6).mapToObj(i -> http.getAsync("/api/order-summary/" + i)).toList();
        double activeMax = 0;
        double pendingMax = 0;
        while (!inFlight.stream().allMatch(CompletableFuture::isDone)) {
            String prometheus = http.get("/actuator/prometheus").body();
            activeMax = Math.max(activeMax, gauge(prometheus, "agroal_connections_active"));
            pendingMax = Math.max(pendingMax, gauge(prometheus, "agroal_connections_pending"));
        }
        assertThat(inFlight).allSatisfy(f -> assertThat(f.join().status()).isEqualTo(200));
        assertThat(activeMax).isEqualTo(2);
        assertThat(pendingMax).isPositive();
        String after = http.get("/actuator/prometheus").body();
        assertThat(gauge(after, "agroal_connections_max")).isEqualTo(2);
        // the exact counters need no sampling luck: every borrow counted, the waits timed, the peak kept
        assertThat(gauge(after, "agroal_connections_acquire_total") - acquiredBefore).isGreaterThanOrEqualTo(6);
        assertThat(gauge(after, "agroal_connections_blocking_seconds_total")).isPositive();
        assertThat(gauge(after, "agroal_connections_max_used")).isEqualTo(2);
    }

    @Test
    void anExhaustedPoolIs503LikeWithHikari() throws Exception {
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            long started = System.nanoTime();
            LabHttp.Response response = http.get("/api/order-summary/1");
            assertProblem(response, 503);
            assertThat(response.retryAfter()).isEqualTo("1");
            assertThat((System.nanoTime() - started) / 1_000_000).isGreaterThanOrEqualTo(1000);
            assertThat(first.isValid(1) && second.isValid(1)).isTrue();
        }
        assertThat(http.get("/api/order-summary/1").status()).isEqualTo(200);
    }

    private static double gauge(String prometheus, String name) {
        return prometheus.lines().filter(line -> line.startsWith(name + "{") || line.startsWith(name + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
