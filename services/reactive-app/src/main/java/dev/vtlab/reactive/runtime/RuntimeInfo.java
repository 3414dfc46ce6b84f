package dev.vtlab.reactive.runtime;

/**
 * The effective configuration of a running reactive app, in the app's field names wherever a field
 * applies, so the harness reads both with one parser. Tomcat, offload and the virtual-thread scheduler
 * do not exist here; the event-loop thread count takes their place.
 */
public record RuntimeInfo(
        String threadMode,
        ServedBy servedBy,
        Pool pool,
        String connMode,
        String pathMode,
        Downstream downstream,
        String jdkVersion,
        String springBootVersion,
        int availableProcessors,
        int eventLoopThreads) {

    public record ServedBy(String name, boolean virtual) {
    }

    /**
     * minimumIdle is r2dbc-pool's minIdle and initialSize the connections opened at start-up; Hikari in the
     * app has only the first. connectionTimeoutMs is the pool's acquire timeout (maxAcquireTime).
     */
    public record Pool(String implementation, String version, int maximumPoolSize, int minimumIdle, int initialSize,
            long connectionTimeoutMs) {
    }

    public record Downstream(String url, long connectTimeoutMs, long readTimeoutMs, String client, int maxConnections) {
    }
}
