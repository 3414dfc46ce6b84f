package dev.vtlab.app.runtime;

/**
 * The effective configuration of a running app. The Python harness parses this shape to check that a
 * benchmark run really used the settings it asked for, so field names are part of the contract.
 */
public record RuntimeInfo(
        String threadMode,
        ServedBy servedBy,
        Pool pool,
        String connMode,
        String pathMode,
        Tomcat tomcat,
        Server server,
        Downstream downstream,
        Offload offload,
        String fanOutMode,
        Context context,
        String jdkVersion,
        String springBootVersion,
        int availableProcessors,
        int virtualThreadSchedulerParallelism) {

    public record ServedBy(String name, boolean virtual) {
    }

    public record Pool(String implementation, String version, int maximumPoolSize, int minimumIdle,
            long connectionTimeoutMs) {
    }

    /** maxThreads is -1 when Tomcat runs on an external executor (virtual threads): no cap applies. */
    public record Tomcat(int maxThreads, int maxConnections, int acceptCount, String executor) {
    }

    /**
     * The server that took the request (tomcat, jetty), as its live objects say: its request threads (-1: no cap), the
     * connections it holds at most (-1: no limit) and its accept queue.
     */
    public record Server(String name, int maxThreads, int maxConnections, int acceptQueue, String executor) {
    }

    /**
     * httpVersion: the version the client asks the stub for (http1, or http2 by an h2c upgrade); httpClient: the
     * library (HTTP_CLIENT) whose request factory is client; pool: its limits as the live client has them.
     */
    public record Downstream(String url, long connectTimeoutMs, long readTimeoutMs, String client, String httpVersion,
            String httpClient, ClientPool pool) {
    }

    /** -1: no such limit (the JDK's client), or not known before the pool's first connection (Reactor's queue). */
    public record ClientPool(int maxPerRoute, int maxPending) {
    }

    /** CONTEXT_MODE and the size of the per-request context it carries. */
    public record Context(String mode, int kilobytes) {
    }

    /** The executor of GET /api/offload/{id}; poolSize is -1 for virtual threads (no cap). */
    public record Offload(String executor, int poolSize) {
    }
}
