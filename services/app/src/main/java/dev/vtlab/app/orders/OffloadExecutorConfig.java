package dev.vtlab.app.orders;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import dev.vtlab.app.system.LabSettings;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;

/** The executor of the offload workload, chosen by OFFLOAD_EXECUTOR and sized by OFFLOAD_POOL. */
@Component
public class OffloadExecutorConfig implements DisposableBean {

    private final ExecutorService executor;
    private final String kind;
    private final int poolSize;

    OffloadExecutorConfig(LabSettings settings) {
        this.kind = LabSettings.valueName(settings.offloadExecutor());
        this.poolSize = settings.offloadPool();
        this.executor = switch (settings.offloadExecutor()) {
            // an unbounded queue in front of a fixed pool: what Executors.newFixedThreadPool gives everyone
            case PLATFORM -> Executors.newFixedThreadPool(poolSize,
                    Thread.ofPlatform().name("offload-", 0).daemon().factory());
            case VIRTUAL -> Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("offload-", 0).factory());
        };
    }

    ExecutorService executor() {
        return executor;
    }

    /** "platform" or "virtual", as runtime-info reports it. */
    public String kind() {
        return kind;
    }

    /** The fixed pool's size; -1 for virtual threads, which have no cap. */
    public int poolSize() {
        return "virtual".equals(kind) ? -1 : poolSize;
    }

    @Override
    public void destroy() {
        executor.shutdownNow();
    }
}
