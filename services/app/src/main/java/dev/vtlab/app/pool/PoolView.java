package dev.vtlab.app.pool;

import java.io.IOException;
import java.io.InputStream;
import java.sql.SQLException;
import java.util.Properties;

import javax.sql.DataSource;

import dev.vtlab.app.system.LabSettings;
import dev.vtlab.app.system.LabSettings.PoolImpl;

/**
 * What the rest of the app needs to know about the connection pool, whichever POOL_IMPL runs it:
 * its configuration for runtime-info and how full it is for the start-up warm-up.
 */
public interface PoolView {

    /** The POOL_IMPL value this pool answers to. */
    PoolImpl poolImpl();

    String implementation();

    String version();

    int maximumPoolSize();

    int minimumIdle();

    long connectionTimeoutMs();

    /** Connections open right now, idle or in use. */
    int totalConnections();

    String name();

    /**
     * The pool a row is labelled with must be the one that runs it: a DataSource of the other kind (a condition
     * that read the variable differently, a DataSource defined elsewhere) stops the start instead.
     */
    static PoolView checked(DataSource dataSource, PoolImpl chosen) throws SQLException {
        PoolView pool = of(dataSource);
        if (pool.poolImpl() != chosen) {
            throw new IllegalStateException("POOL_IMPL is " + LabSettings.valueName(chosen) + " but the DataSource is "
                    + pool.implementation() + "'s (" + dataSource.getClass().getName() + ")");
        }
        return pool;
    }

    static PoolView of(DataSource dataSource) throws SQLException {
        if (dataSource.isWrapperFor(com.zaxxer.hikari.HikariDataSource.class)) {
            return new HikariPoolView(dataSource.unwrap(com.zaxxer.hikari.HikariDataSource.class));
        }
        if (dataSource.isWrapperFor(io.agroal.api.AgroalDataSource.class)) {
            return new AgroalPoolView(dataSource.unwrap(io.agroal.api.AgroalDataSource.class));
        }
        throw new IllegalStateException("unknown connection pool " + dataSource.getClass().getName());
    }

    /** The version in a jar's Maven pom.properties: neither pool's manifest carries one. */
    static String mavenVersion(Class<?> anchor, String groupId, String artifactId) {
        String path = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = anchor.getClassLoader().getResourceAsStream(path)) {
            if (in != null) {
                Properties props = new Properties();
                props.load(in);
                return props.getProperty("version", "unknown");
            }
        }
        catch (IOException ex) {
            // fall through
        }
        String fromManifest = anchor.getPackage().getImplementationVersion();
        return fromManifest != null ? fromManifest : "unknown";
    }
}
