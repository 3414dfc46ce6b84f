package dev.vtlab.app.downstream;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;

import dev.vtlab.testsupport.LabHttp;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What every client's pool must show, against the real stub: runtime-info names the client and reads its limits from
 * the live object, and a burst of more requests than the pool has connections fills it, never beyond its limit, with
 * the rest counted as waiting. Each subclass is one client with its settings.
 */
abstract class ClientPoolContract {

    @LocalServerPort
    int port;

    @Autowired
    MeterRegistry registry;

    /** The client's name (HTTP_CLIENT), its request factory's class and the limit per route it runs with. */
    abstract String client();

    abstract String factory();

    abstract int maxPerRoute();

    @Test
    void runtimeInfoNamesTheClientAndItsPoolFromTheLiveObjects() {
        JsonNode downstream = new LabHttp(port).get("/api/runtime-info").json().get("downstream");

        assertThat(downstream.get("httpClient").asString()).isEqualTo(client());
        assertThat(downstream.get("client").asString()).isEqualTo(factory());
        assertThat(downstream.get("pool").get("maxPerRoute").asInt()).isEqualTo(maxPerRoute());
        assertThat(registry.get("vtlab.downstream.pool.max").tag("client", client()).gauge().value())
                .isEqualTo(maxPerRoute());
    }

    @Test
    void aBurstBeyondThePoolFillsItAndTheRestWait() throws Exception {
        int burst = maxPerRoute() + 6;
        AtomicInteger peakLeased = new AtomicInteger();
        AtomicInteger peakPending = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        // the gauges every few milliseconds while the burst is in flight (each call holds a connection >= 100 ms)
        Thread sampler = Thread.ofPlatform().start(() -> {
            while (!done.get()) {
                peakLeased.accumulateAndGet((int) gauge("vtlab.downstream.pool.leased"), Math::max);
                peakPending.accumulateAndGet((int) gauge("vtlab.downstream.pool.pending"), Math::max);
                Thread.onSpinWait();
            }
        });
        LabHttp http = new LabHttp(port);
        List<CompletableFuture<LabHttp.Response>> inFlight = IntStream.rangeClosed(1, burst)
                .mapToObj(i -> http.getAsync("/api/order-summary/" + i)).toList();
        List<Integer> statuses = inFlight.stream().map(CompletableFuture::join).map(LabHttp.Response::status).toList();
        done.set(true);
        sampler.join();

        assertThat(statuses).containsOnly(200);
        assertThat(peakLeased.get()).isEqualTo(maxPerRoute());
        // at most the burst: while its first connections open, Reactor and Jetty count every request as waiting
        assertThat(peakPending.get()).isPositive().isLessThanOrEqualTo(burst);
        // every connection given back (Reactor and Jetty release theirs on their own threads, just after the answer)
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (gauge("vtlab.downstream.pool.leased") > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(gauge("vtlab.downstream.pool.leased")).isZero();
    }

    double gauge(String name) {
        return registry.get(name).tag("client", client()).gauge().value();
    }
}
