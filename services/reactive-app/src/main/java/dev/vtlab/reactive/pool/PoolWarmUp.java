package dev.vtlab.reactive.pool;

import java.time.Duration;

import dev.vtlab.reactive.system.LabSettings;
import io.r2dbc.pool.ConnectionPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Opens the pool's initial connections before the app reports ready, as the app does with Hikari: a
 * wrong DB_URL then fails the start instead of every request, and connection set-up stays out of the
 * first measured requests.
 */
@Component
class PoolWarmUp implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(PoolWarmUp.class);

    private final ConnectionPool pool;
    private final LabSettings settings;

    PoolWarmUp(ConnectionPool pool, LabSettings settings) {
        this.pool = pool;
        this.settings = settings;
    }

    @Override
    public void run(ApplicationArguments args) {
        // Waiting is right here and only here: this is the main thread during start-up, not an event loop
        // (Reactor refuses block() on a non-blocking thread, so a mistake would fail loudly, not stall).
        Duration timeout = settings.service().dbPoolTimeout().multipliedBy(2);
        Integer opened = pool.warmup().block(timeout);
        log.info("Pool ready with {} new connections (max {}); {}", opened,
                pool.getMetrics().map(m -> m.getMaxAllocatedSize()).orElse(-1), settings);
    }
}
