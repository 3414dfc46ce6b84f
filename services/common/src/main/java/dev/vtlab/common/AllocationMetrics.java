package dev.vtlab.common;

import java.lang.management.ManagementFactory;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code jvm.allocated}: bytes allocated on the heap by every thread since the JVM started, threads that ended
 * included (HotSpot's own per-thread counters, summed). A virtual thread allocates in its carrier's buffer, so its
 * bytes are counted too. Micrometer's {@code jvm.gc.memory.allocated} moves only when a young collection runs: a
 * hold without one reads zero. Absent where the JVM does not count allocation per thread.
 */
public class AllocationMetrics implements MeterBinder {

    @Override
    public void bindTo(MeterRegistry registry) {
        if (!(ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean threads)
                || !threads.isThreadAllocatedMemorySupported()) {
            return;
        }
        threads.setThreadAllocatedMemoryEnabled(true);
        FunctionCounter.builder("jvm.allocated", threads, com.sun.management.ThreadMXBean::getTotalThreadAllocatedBytes)
                .description("Bytes allocated on the heap since the JVM started, by all threads")
                .baseUnit("bytes")
                .register(registry);
    }
}
