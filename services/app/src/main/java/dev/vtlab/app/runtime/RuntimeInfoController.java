package dev.vtlab.app.runtime;

import java.lang.management.ManagementFactory;
import java.lang.management.PlatformManagedObject;
import java.sql.SQLException;
import java.time.Duration;

import javax.sql.DataSource;

import dev.vtlab.app.downstream.DownstreamClient;
import dev.vtlab.app.downstream.DownstreamPool;
import dev.vtlab.app.orders.OffloadExecutorConfig;
import dev.vtlab.app.pool.PoolView;
import dev.vtlab.app.system.LabSettings;
import dev.vtlab.app.system.LiveConnMode;
import dev.vtlab.app.system.NettyAcceptQueue;
import dev.vtlab.app.system.NettyBlockingExecution;
import dev.vtlab.common.runtime.ThreadInfo;
import io.swagger.v3.oas.annotations.Operation;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reports what the app is actually running with, read back from the live pool, connector and thread,
 * so a benchmark can prove that e.g. VT_ENABLED=true really produced virtual request threads.
 */
@RestController
class RuntimeInfoController {

    private final DataSource dataSource;
    private final WebServerApplicationContext context;
    private final DownstreamClient downstream;
    private final LabSettings settings;
    /** What requests run with now: CONN_MODE's value, or what the rig switched it to between steps. */
    private final LiveConnMode connMode;
    private final OffloadExecutorConfig offload;
    private final DownstreamPool downstreamPool;
    /** Netty's parts, built only when SERVER=netty. */
    private final ObjectProvider<NettyBlockingExecution> nettyBlocking;
    private final ObjectProvider<NettyAcceptQueue> nettyAcceptQueue;

    RuntimeInfoController(DataSource dataSource, WebServerApplicationContext context, DownstreamClient downstream,
            LabSettings settings, LiveConnMode connMode, OffloadExecutorConfig offload, DownstreamPool downstreamPool,
            ObjectProvider<NettyBlockingExecution> nettyBlocking, ObjectProvider<NettyAcceptQueue> nettyAcceptQueue) {
        this.dataSource = dataSource;
        this.context = context;
        this.downstream = downstream;
        this.settings = settings;
        this.connMode = connMode;
        this.offload = offload;
        this.downstreamPool = downstreamPool;
        this.nettyBlocking = nettyBlocking;
        this.nettyAcceptQueue = nettyAcceptQueue;
    }

    @Operation(summary = "The thread serving this request (name, id, virtual or not)")
    @GetMapping("/api/thread-info")
    ThreadInfo threadInfo() {
        return ThreadInfo.current();
    }

    @Operation(summary = "What is really running, read from the live objects",
            description = "Thread mode, pool (implementation, size, timeout), connection and path mode, Tomcat "
                    + "threads, executors, versions: the rig refuses a row whose service reports otherwise.")
    @GetMapping("/api/runtime-info")
    RuntimeInfo runtimeInfo() throws SQLException {
        Thread serving = Thread.currentThread();
        RuntimeInfo.Server server = ServerView.of(context.getWebServer(), nettyBlocking.getIfAvailable(),
                nettyAcceptQueue.getIfAvailable());
        return new RuntimeInfo(
                serving.isVirtual() ? "virtual" : "platform",
                new RuntimeInfo.ServedBy(serving.getName(), serving.isVirtual()),
                pool(),
                lower(connMode.current()),
                lower(settings.pathMode()),
                tomcat(server),
                server,
                new RuntimeInfo.Downstream(downstream.baseUrl().toString(), millis(downstream.connectTimeout()),
                        millis(downstream.readTimeout()), downstream.requestFactory().getClass().getSimpleName(),
                        lower(settings.downstreamHttp()), downstreamPool.client(),
                        new RuntimeInfo.ClientPool(downstreamPool.maxPerRoute(), downstreamPool.maxPending())),
                new RuntimeInfo.Offload(offload.kind(), offload.poolSize()),
                lower(settings.fanOutMode()),
                new RuntimeInfo.Context(lower(settings.contextMode()), settings.contextKb()),
                Runtime.version().toString(),
                SpringBootVersion.getVersion(),
                Runtime.getRuntime().availableProcessors(),
                schedulerParallelism());
    }

    private RuntimeInfo.Pool pool() throws SQLException {
        PoolView pool = PoolView.of(dataSource);
        return new RuntimeInfo.Pool(pool.implementation(), pool.version(), pool.maximumPoolSize(), pool.minimumIdle(),
                pool.connectionTimeoutMs());
    }

    /** Tomcat's own record, which the harness reads beside the server's: the server's limits when it is Tomcat. */
    private RuntimeInfo.Tomcat tomcat(RuntimeInfo.Server server) {
        if ("tomcat".equals(server.name())) {
            return new RuntimeInfo.Tomcat(server.maxThreads(), server.maxConnections(), server.acceptQueue(),
                    server.executor());
        }
        WebServer web = context.getWebServer();
        return new RuntimeInfo.Tomcat(-1, -1, -1, web == null ? "none" : web.getClass().getSimpleName());
    }

    private static int schedulerParallelism() {
        try {
            // jdk.management.VirtualThreadSchedulerMXBean is JDK 24+: by name, so the app compiles and runs on 21.
            Class<?> type = Class.forName("jdk.management.VirtualThreadSchedulerMXBean");
            Object bean = ManagementFactory.getPlatformMXBean(type.asSubclass(PlatformManagedObject.class));
            return (int) type.getMethod("getParallelism").invoke(bean);
        }
        catch (ReflectiveOperationException | RuntimeException | LinkageError ex) {
            // Older JDK or a stripped runtime without jdk.management: fall back to the documented default.
            String configured = System.getProperty("jdk.virtualThreadScheduler.parallelism");
            return configured != null ? Integer.parseInt(configured) : Runtime.getRuntime().availableProcessors();
        }
    }

    private static long millis(Duration duration) {
        return duration == null ? -1 : duration.toMillis();
    }

    private static String lower(Enum<?> value) {
        return LabSettings.valueName(value);
    }
}
