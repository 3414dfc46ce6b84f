package dev.vtlab.reactive.runtime;

import java.time.Duration;

import dev.vtlab.common.runtime.ThreadInfo;
import dev.vtlab.reactive.downstream.DownstreamClient;
import io.swagger.v3.oas.annotations.Operation;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

import org.springframework.boot.SpringBootVersion;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Reports what the reactive app is actually running with, in the shape of the app's runtime-info, so
 * the rig can check a run the same way for all three models.
 */
@RestController
class RuntimeInfoController {

    /** The only mode that exists here: the connection is back in the pool before the downstream call. */
    private static final String CONN_MODE = "released";

    /** No monitor or native frame around the downstream call: there is no thread to pin. */
    private static final String PATH_MODE = "normal";

    private final PoolDescription pool;
    private final DownstreamClient downstream;

    RuntimeInfoController(PoolDescription pool, DownstreamClient downstream) {
        this.pool = pool;
        this.downstream = downstream;
    }

    @Operation(summary = "The thread serving this request (name, id, virtual or not)")
    @GetMapping("/api/thread-info")
    ThreadInfo threadInfo() {
        return ThreadInfo.current();
    }

    @Operation(summary = "What is really running, read from the live objects",
            description = "Model (webflux), pool (size, timeout), connection and path mode, downstream client and "
                    + "its connection cap, event loops, versions: the rig refuses a row whose service reports otherwise.")
    @GetMapping("/api/runtime-info")
    RuntimeInfo runtimeInfo() {
        Thread serving = Thread.currentThread();
        return new RuntimeInfo(
                "webflux",
                new RuntimeInfo.ServedBy(serving.getName(), serving.isVirtual()),
                pool.describe(),
                CONN_MODE,
                PATH_MODE,
                new RuntimeInfo.Downstream(downstream.baseUrl().toString(), millis(downstream.connectTimeout()),
                        millis(downstream.readTimeout()), "WebClient (" + downstream.connector().getClass()
                                .getSimpleName() + ")", ConnectionProvider.DEFAULT_POOL_MAX_CONNECTIONS),
                Runtime.version().toString(),
                SpringBootVersion.getVersion(),
                Runtime.getRuntime().availableProcessors(),
                // Boot's Netty server and WebClient share one set of loops (its ReactorResourceFactory), sized
                // by Reactor Netty's default: the cores, but at least 4. R2DBC's driver has its own set.
                LoopResources.DEFAULT_IO_WORKER_COUNT);
    }

    private static long millis(Duration duration) {
        return duration == null ? -1 : duration.toMillis();
    }
}
