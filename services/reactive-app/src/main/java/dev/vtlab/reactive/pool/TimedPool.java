package dev.vtlab.reactive.pool;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.R2dbcTimeoutException;
import reactor.core.publisher.Mono;

import org.springframework.stereotype.Component;

/**
 * Borrows connections from the R2DBC pool with the exact accounting HikariCP keeps for the app (its
 * hikaricp.connections.acquire and .usage timers): every borrow counted, every wait and every use timed.
 * Over the hold the rig reads borrows per second and, by Little's law, the mean subscribers waiting for a
 * connection (acquire seconds per second) and the mean connections out (usage seconds per second); the
 * pool's own gauges are sampled at 2 Hz and rarely catch a borrow that lasts a millisecond.
 *
 * <p>Timed here, on the caller's side, because Boot 4 builds the ConnectionPool from properties with no
 * hook into its builder, and reactor-pool's PoolMetricsRecorder (the builder's metricsRecorder) would
 * miss what a caller waits for outside reactor-pool (r2dbc-pool's validation and its maxAcquireTime) and
 * keeps no time a connection is out. Subscribe to connection emitted is what Hikari's acquire timer
 * measures (its getConnection), emitted to close completed what its usage timer measures.
 *
 * <p>Unlike Hikari's acquire timer, a wait that ends without a connection is timed too, under its own
 * outcome: those subscribers were waiting, and leaving them out would understate the mean waiters when
 * the pool times borrows out. The borrows are the {@code outcome=success} count alone.
 */
@Component
public class TimedPool {

    /** The tag Boot puts on the pool's r2dbc.pool.* gauges (the pool's bean name), so both sets match. */
    static final String POOL_NAME = "connectionFactory";

    private final ConnectionPool pool;
    private final Timer acquired;
    private final Timer timedOut;
    private final Timer failed;
    private final Timer cancelled;
    private final Timer usage;

    public TimedPool(ConnectionPool pool, MeterRegistry registry) {
        this.pool = pool;
        // Registered now, not at the first borrow: the rig's first scrape then reads zeros, not a missing meter.
        this.acquired = acquireTimer(registry, "success");
        this.timedOut = acquireTimer(registry, "timeout");
        this.failed = acquireTimer(registry, "error");
        this.cancelled = acquireTimer(registry, "cancelled");
        this.usage = Timer.builder("r2dbc.pool.usage")
                .description("Time a connection was out of the pool: from handed out to given back")
                .tag("name", POOL_NAME).register(registry);
    }

    private static Timer acquireTimer(MeterRegistry registry, String outcome) {
        return Timer.builder("r2dbc.pool.acquire")
                .description("Time from asking the pool for a connection until getting one or giving up")
                .tags("name", POOL_NAME, "outcome", outcome).register(registry);
    }

    /**
     * A connection from the pool, its wait timed; the error of a failed acquire passes through unchanged
     * (r2dbc-pool's maxAcquireTime running out is an R2dbcTimeoutException).
     */
    public Mono<Borrowed> borrow() {
        return Mono.defer(() -> {
            Span wait = new Span(System.nanoTime());
            return Mono.from(pool.create())
                    .map(connection -> new Borrowed(connection, new Span(wait.end(acquired)), usage))
                    .doOnError(ex -> wait.end(ex instanceof R2dbcTimeoutException ? timedOut : failed))
                    .doOnCancel(() -> wait.end(cancelled));
        });
    }

    /** A connection out of the pool, until {@link #giveBack()} completes. */
    public static final class Borrowed {

        private final Connection connection;
        private final Span out;
        private final Timer usage;

        private Borrowed(Connection connection, Span out, Timer usage) {
            this.connection = connection;
            this.out = out;
            this.usage = usage;
        }

        public Connection connection() {
            return connection;
        }

        /** Returns the connection to the pool; it counts as out until the pool has it back, however that ends. */
        public Mono<Void> giveBack() {
            return Mono.from(connection.close()).doFinally(signal -> out.end(usage));
        }
    }

    /**
     * A span recorded exactly once, under the timer that ends it first: a cancel can race the emission
     * that ends a wait, and a connection can be given back twice.
     */
    private static final class Span extends AtomicBoolean {

        private final long started;

        Span(long started) {
            this.started = started;
        }

        /** Records the span (the first call only) and returns when it ended. */
        long end(Timer timer) {
            long now = System.nanoTime();
            if (compareAndSet(false, true)) {
                timer.record(now - started, TimeUnit.NANOSECONDS);
            }
            return now;
        }
    }
}
