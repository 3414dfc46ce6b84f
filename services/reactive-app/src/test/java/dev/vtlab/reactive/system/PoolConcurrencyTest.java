package dev.vtlab.reactive.system;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import dev.vtlab.reactive.support.HeldConnections;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import io.micrometer.core.instrument.MeterRegistry;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/** Twenty requests on two connections: they queue for the pool, and the pending gauge shows it. */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "DB_POOL_MAX=2", "DB_POOL_TIMEOUT_MS=5000" })
class PoolConcurrencyTest {

    private static final int REQUESTS = 20;

    @LocalServerPort
    int port;

    @Autowired
    ConnectionPool pool;

    @Autowired
    MeterRegistry registry;

    @Test
    void twentyConcurrentRequestsOnAPoolOfTwoAllSucceed() {
        LabHttp http = new LabHttp(port);
        List<CompletableFuture<LabHttp.Response>> inFlight = IntStream.rangeClosed(1, REQUESTS)
                .mapToObj(i -> http.getAsync("/api/order-summary/" + i)).toList();

        assertThat(inFlight.stream().map(CompletableFuture::join).map(LabHttp.Response::status))
                .hasSize(REQUESTS).containsOnly(200);
    }

    @Test
    void pendingGaugeCountsRequestsWaitingForAConnection() throws Exception {
        LabHttp http = new LabHttp(port);
        List<CompletableFuture<LabHttp.Response>> inFlight;
        double peakPending = 0;
        // The test holds both connections, so every request must wait for one, well within the 5 s timeout.
        try (HeldConnections held = HeldConnections.take(pool, 2)) {
            inFlight = IntStream.rangeClosed(1, REQUESTS)
                    .mapToObj(i -> http.getAsync("/api/order-summary/" + i)).toList();
            long deadline = System.nanoTime() + 3_000_000_000L;
            while (peakPending < REQUESTS && System.nanoTime() < deadline) {
                peakPending = Math.max(peakPending, pendingGauge());
                Thread.sleep(10);
            }
            assertThat(pool.getMetrics().orElseThrow().acquiredSize()).isEqualTo(2);
        }

        assertThat(peakPending).as("r2dbc.pool.pending while the pool is held").isPositive();
        assertThat(inFlight.stream().map(CompletableFuture::join).map(LabHttp.Response::status))
                .hasSize(REQUESTS).containsOnly(200);
        assertThat(pendingGauge()).isZero();

        // The same gauge under the name the rig scrapes.
        assertThat(new LabHttp(port).get("/actuator/prometheus").body())
                .contains("r2dbc_pool_pending_connections{", "r2dbc_pool_acquired_connections{",
                        "r2dbc_pool_max_allocated_connections{name=\"connectionFactory\"} 2.0");
    }

    private double pendingGauge() {
        return registry.get("r2dbc.pool.pending").gauge().value();
    }
}
