package dev.vtlab.reactive.system;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * The rig hands every service DB_URL in JDBC form (jdbc:postgresql://host:port/db). The R2DBC driver
 * reads the same host, port, database and query options from r2dbc:postgresql://host:port/db, so only
 * the scheme changes. JDBC's host-less forms (jdbc:postgresql:db) and multi-host lists have no such
 * one-to-one R2DBC form and are refused rather than guessed at.
 */
final class JdbcToR2dbcUrl {

    private static final String JDBC_PREFIX = "jdbc:postgresql://";
    private static final String R2DBC_PREFIX = "r2dbc:postgresql://";

    private JdbcToR2dbcUrl() {
    }

    static boolean accepts(String jdbcUrl) {
        if (!jdbcUrl.startsWith(JDBC_PREFIX)) {
            return false;
        }
        try {
            URI uri = new URI("postgresql://" + jdbcUrl.substring(JDBC_PREFIX.length()));
            return uri.getHost() != null && uri.getPath() != null && uri.getPath().length() > 1;
        }
        catch (URISyntaxException ex) {
            return false;
        }
    }

    static String convert(String jdbcUrl) {
        if (!accepts(jdbcUrl)) {
            throw new IllegalArgumentException("Not a jdbc:postgresql://host:port/db URL");
        }
        return R2DBC_PREFIX + jdbcUrl.substring(JDBC_PREFIX.length());
    }
}
