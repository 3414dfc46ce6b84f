package dev.vtlab.app.support;

import dev.vtlab.testsupport.LabHttp;
import java.util.concurrent.CompletableFuture;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;

/**
 * Samples the pool's active-connection count while one request is in flight. The request is mostly
 * the downstream call (the query takes a few ms, the stub STUB_DELAY_MS), so the share of samples with
 * a borrowed connection tells whether the connection was held across that call.
 */
public final class PoolSampler {

    private PoolSampler() {
    }

    public record Result(int samples, int withActiveConnection, LabHttp.Response response) {

        public double activeShare() {
            return samples == 0 ? 0 : (double) withActiveConnection / samples;
        }
    }

    public static Result sampleDuring(DataSource dataSource, LabHttp http, String path) throws Exception {
        HikariPoolMXBean pool = hikariPool(dataSource);
        CompletableFuture<LabHttp.Response> inFlight = http.getAsync(path);
        int samples = 0;
        int active = 0;
        while (!inFlight.isDone()) {
            samples++;
            if (pool.getActiveConnections() > 0) {
                active++;
            }
            Thread.sleep(2);
        }
        return new Result(samples, active, inFlight.get());
    }

    public static HikariPoolMXBean hikariPool(DataSource dataSource) throws Exception {
        return dataSource.unwrap(HikariDataSource.class).getHikariPoolMXBean();
    }
}
