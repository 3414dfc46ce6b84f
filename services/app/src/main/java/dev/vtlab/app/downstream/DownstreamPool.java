package dev.vtlab.app.downstream;

import java.util.function.ToIntFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The downstream client's connection pool as it runs: its limits, the connections leased and the requests waiting
 * for one, read from the client's own objects. A limit the client does not have, or a count it does not keep, reads
 * -1 (the JDK's client opens a connection per request in flight over HTTP/1.1 and keeps its pool to itself).
 *
 * <p>The gauges ({@code vtlab.downstream.pool.*}, tagged with the client) are what the rig samples beside the
 * database pool's: a pool whose connections are all leased while requests wait is the row's wall.
 */
public final class DownstreamPool implements MeterBinder {

    /** What one client tells of its pool; -1 where it has no such limit or keeps no such count. */
    public interface Source {
        int maxPerRoute();

        int maxPending();

        int leased();

        int pending();
    }

    /** A reading that does not change: the JDK's client (no limit, no counts), a pool before its first connection. */
    public record Fixed(int maxPerRoute, int maxPending, int leased, int pending) implements Source {
    }

    private static final Source UNBOUNDED = new Fixed(-1, -1, -1, -1);

    private final String client;
    // set once the client is built (Spring builds it on the first lookup), or at its first connection (Reactor)
    private volatile Source source;

    public DownstreamPool(String client, Source initial) {
        this.client = client;
        this.source = initial;
    }

    /** A client without a pool limit: the JDK's. */
    public static DownstreamPool unbounded(String client) {
        return new DownstreamPool(client, UNBOUNDED);
    }

    void use(Source live) {
        this.source = live;
    }

    public String client() {
        return client;
    }

    public int maxPerRoute() {
        return source.maxPerRoute();
    }

    public int maxPending() {
        return source.maxPending();
    }

    public int leased() {
        return source.leased();
    }

    public int pending() {
        return source.pending();
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        gauge(registry, "vtlab.downstream.pool.max", "Connections per route the client may open (-1: no limit)",
                DownstreamPool::maxPerRoute, true);
        gauge(registry, "vtlab.downstream.pool.pending.max", "Requests that may wait for a connection (-1: no limit)",
                DownstreamPool::maxPending, true);
        gauge(registry, "vtlab.downstream.pool.leased", "Connections to the stub leased to a request",
                DownstreamPool::leased, false);
        gauge(registry, "vtlab.downstream.pool.pending", "Requests waiting for a connection to the stub",
                DownstreamPool::pending, false);
    }

    /** A limit reads -1 where there is none; a count the client does not keep reads NaN: not measured, never 0. */
    private void gauge(MeterRegistry registry, String name, String description, ToIntFunction<DownstreamPool> read,
            boolean limit) {
        Gauge.builder(name, this, pool -> {
            int value = read.applyAsInt(pool);
            return value < 0 && !limit ? Double.NaN : value;
        }).description(description).tag("client", client).register(registry);
    }
}
