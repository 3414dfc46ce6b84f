package dev.vtlab.reactive.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.spi.Connection;
import reactor.core.publisher.Mono;

/**
 * Connections the test takes out of the pool itself, so that requests must wait for them: the
 * deterministic way to exhaust a pool. The test thread may block; it is not an event loop.
 */
public final class HeldConnections implements AutoCloseable {

    private final List<Connection> held = new ArrayList<>();

    public static HeldConnections take(ConnectionPool pool, int count) {
        HeldConnections connections = new HeldConnections();
        for (int i = 0; i < count; i++) {
            connections.held.add(Mono.from(pool.create()).block(Duration.ofSeconds(10)));
        }
        return connections;
    }

    @Override
    public void close() {
        for (Connection connection : held) {
            Mono.from(connection.close()).block(Duration.ofSeconds(10));
        }
        held.clear();
    }
}
