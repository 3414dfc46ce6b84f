package dev.vtlab.reactive.system;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

import dev.vtlab.reactive.support.HeldConnections;
import dev.vtlab.testsupport.LabHttp;
import dev.vtlab.testsupport.LabInfrastructure;
import io.r2dbc.pool.ConnectionPool;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static dev.vtlab.testsupport.ProblemAssertions.assertProblem;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The pool's exact accounting (TimedPool's r2dbc.pool.acquire and .usage timers), read under the names the
 * rig scrapes: every borrow counted and every wait timed, however short, with no sampling luck. The
 * connections the test holds itself are taken from the pool directly, so they are neither borrows nor use.
 */
@ExtendWith(LabInfrastructure.class)
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, properties = {
        "DB_POOL_MAX=2", "DB_POOL_TIMEOUT_MS=2000" })
class PoolAccountingTest {

    private static final String BORROWS = "r2dbc_pool_acquire_seconds_count{name=\"connectionFactory\",outcome=\"success\"}";
    private static final String TIMEOUTS = "r2dbc_pool_acquire_seconds_count{name=\"connectionFactory\",outcome=\"timeout\"}";
    private static final String ACQUIRE_S = "r2dbc_pool_acquire_seconds_sum"; // every outcome's waits
    private static final String USAGE_S = "r2dbc_pool_usage_seconds_sum{name=\"connectionFactory\"}";

    @LocalServerPort
    int port;

    @Autowired
    ConnectionPool pool;

    LabHttp http;

    @BeforeEach
    void setUp() {
        http = new LabHttp(port);
    }

    @Test
    void everyBorrowIsCountedAndItsWaitAndUseTimed() {
        String before = prometheus();
        long started = System.nanoTime();
        for (int i = 1; i <= 20; i++) {
            assertThat(http.get("/api/order-summary/" + i).status()).isEqualTo(200);
        }
        double elapsedS = (System.nanoTime() - started) / 1e9;
        String after = prometheus();

        assertThat(grew(before, after, BORROWS)).isGreaterThanOrEqualTo(20);
        // One request at a time: a connection out, or a subscriber waiting, for part of the time at most.
        assertThat(grew(before, after, USAGE_S)).isPositive().isLessThan(elapsedS);
        assertThat(grew(before, after, ACQUIRE_S)).isPositive().isLessThan(elapsedS);
        assertThat(grew(before, after, TIMEOUTS)).isZero();
    }

    @Test
    void waitsForAnExhaustedPoolAddUpToTheMeanWaiters() throws Exception {
        int requests = 6;
        long heldMs = 500;
        String before = prometheus();
        List<CompletableFuture<LabHttp.Response>> inFlight;
        try (HeldConnections held = HeldConnections.take(pool, 2)) {
            inFlight = IntStream.rangeClosed(1, requests).mapToObj(i -> http.getAsync("/api/order-summary/" + i)).toList();
            long deadline = System.nanoTime() + 1_000_000_000L; // well inside the 2 s acquire timeout
            while (pool.getMetrics().orElseThrow().pendingAcquireSize() < requests && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(pool.getMetrics().orElseThrow().pendingAcquireSize()).isEqualTo(requests);
            Thread.sleep(heldMs);
        }
        assertThat(inFlight).allSatisfy(f -> assertThat(f.join().status()).isEqualTo(200));
        String after = prometheus();

        // Each of the six waited at least while all six were pending: Little's law gets every second of it.
        assertThat(grew(before, after, ACQUIRE_S)).isGreaterThanOrEqualTo(requests * heldMs / 1000.0);
        assertThat(grew(before, after, BORROWS)).isGreaterThanOrEqualTo(requests);
        assertThat(grew(before, after, USAGE_S)).isPositive();
        assertThat(grew(before, after, TIMEOUTS)).isZero();
    }

    @Test
    void aWaitThatTimesOutIsTimedButIsNoBorrow() {
        String before = prometheus();
        try (HeldConnections held = HeldConnections.take(pool, 2)) {
            assertProblem(http.get("/api/order-summary/1"), 503);
        }
        String after = prometheus();

        assertThat(grew(before, after, TIMEOUTS)).isEqualTo(1);
        assertThat(grew(before, after, BORROWS)).isZero();
        assertThat(grew(before, after, ACQUIRE_S)).isGreaterThanOrEqualTo(2.0); // the whole timeout: its clock starts after ours
        assertThat(grew(before, after, USAGE_S)).isZero();
    }

    private String prometheus() {
        return http.get("/actuator/prometheus").body();
    }

    /** How much a meter grew; a name without labels sums every label set, as the rig does. */
    private static double grew(String before, String after, String meter) {
        return value(after, meter) - value(before, meter);
    }

    private static double value(String prometheus, String meter) {
        return prometheus.lines()
                .filter(line -> meter.contains("{") ? line.startsWith(meter + " ")
                        : line.startsWith(meter + "{") || line.startsWith(meter + " "))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
