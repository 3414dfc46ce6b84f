package dev.vtlab.reactive.runtime;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.PoolMetrics;

import org.springframework.boot.r2dbc.autoconfigure.R2dbcProperties;
import org.springframework.stereotype.Component;

/**
 * The pool part of runtime-info. The maximum is read back from the live pool, which is what a run is
 * checked against; r2dbc-pool exposes no other setting once built, so the rest comes from the
 * properties Boot built it from.
 */
@Component
class PoolDescription {

    private final ConnectionPool pool;
    private final R2dbcProperties.Pool configured;
    private final String version = r2dbcPoolVersion();

    PoolDescription(ConnectionPool pool, R2dbcProperties properties) {
        this.pool = pool;
        this.configured = properties.getPool();
    }

    RuntimeInfo.Pool describe() {
        int maximum = pool.getMetrics().map(PoolMetrics::getMaxAllocatedSize).orElse(configured.getMaxSize());
        return new RuntimeInfo.Pool("r2dbc-pool", version, maximum, configured.getMinIdle(),
                configured.getInitialSize(), configured.getMaxAcquireTime().toMillis());
    }

    private static String r2dbcPoolVersion() {
        String fromManifest = ConnectionPool.class.getPackage().getImplementationVersion();
        if (fromManifest != null) {
            return fromManifest;
        }
        try (InputStream in = ConnectionPool.class.getClassLoader()
                .getResourceAsStream("META-INF/maven/io.r2dbc/r2dbc-pool/pom.properties")) {
            if (in != null) {
                Properties props = new Properties();
                props.load(in);
                return props.getProperty("version", "unknown");
            }
        }
        catch (IOException ex) {
            // fall through
        }
        return "unknown";
    }
}
