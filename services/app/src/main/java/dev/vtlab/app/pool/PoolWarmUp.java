package dev.vtlab.app.pool;

import java.sql.Connection;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import dev.vtlab.app.system.LabSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Starts and fills the pool before the app reports ready. Hikari starts lazily on the first request,
 * which would put connection set-up into the first measured requests, leave the hikaricp.* meters
 * missing until then, and turn a wrong DB_URL into 500s at run time instead of a failed start. Agroal
 * fills its minimum in the background: the same wait makes both pools start full. It also refuses to start
 * when the DataSource is not the pool POOL_IMPL names: the row's label would be wrong.
 */
@Component
class PoolWarmUp implements ApplicationRunner {

    private static final Logger log = LoggerFactory.getLogger(PoolWarmUp.class);

    private final DataSource dataSource;
    private final LabSettings settings;

    PoolWarmUp(DataSource dataSource, LabSettings settings) {
        this.dataSource = dataSource;
        this.settings = settings;
    }

    @Override
    public void run(ApplicationArguments args) throws Exception {
        try (Connection connection = dataSource.getConnection()) {
            connection.isValid(1);
        }
        PoolView pool = PoolView.checked(dataSource, settings.poolImpl());
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.service().dbPoolTimeout().toMillis());
        while (pool.totalConnections() < pool.minimumIdle() && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        log.info("{} pool {} ready with {} of {} connections; {}", pool.implementation(), pool.name(),
                pool.totalConnections(), pool.maximumPoolSize(), settings);
    }
}
