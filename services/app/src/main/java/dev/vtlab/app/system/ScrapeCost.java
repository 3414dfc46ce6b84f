package dev.vtlab.app.system;

import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

import com.sun.management.ThreadMXBean;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * What the rig's own scrapes cost the service, so that the harness can bill them to the rig and not to the requests
 * (issue 44): each scrape's CPU time and heap allocation, read on the thread that writes it before and after the
 * write, summed into {@code vtlab.scrape.cpu} (seconds), {@code vtlab.scrape.allocated} (bytes) and
 * {@code vtlab.scrape} (scrapes).
 *
 * <p>The counters move after the write, so a scrape shows the scrapes before it, never part of itself: the harness's
 * rate between two of its readings then spans whole scrapes. A meter the JVM cannot measure per thread is left out,
 * never read as zero; so is a scrape written on a virtual thread, whose thread counters read -1.
 */
public class ScrapeCost implements MeterBinder {

    private final ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final boolean cpuCounted = threads.isCurrentThreadCpuTimeSupported();
    private final boolean allocationCounted = threads.isThreadAllocatedMemorySupported();
    private final LongAdder cpuNanos = new LongAdder();
    private final LongAdder allocatedBytes = new LongAdder();
    private final LongAdder scrapes = new LongAdder();

    public ScrapeCost() {
        if (cpuCounted) {
            threads.setThreadCpuTimeEnabled(true);
        }
        if (allocationCounted) {
            threads.setThreadAllocatedMemoryEnabled(true);
        }
    }

    /** The scrape written on this thread, its CPU time and allocation added to the totals once it is written. */
    public <T> T measure(Supplier<T> scrape) {
        long cpuBefore = cpuNow();
        long bytesBefore = bytesNow();
        try {
            return scrape.get();
        } finally {
            add(cpuNanos, cpuBefore, cpuNow());
            add(allocatedBytes, bytesBefore, bytesNow());
            scrapes.increment();
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        if (cpuCounted) {
            FunctionCounter.builder("vtlab.scrape.cpu", cpuNanos, nanos -> nanos.sum() / 1e9)
                    .description("CPU time the service spent writing its Prometheus scrapes")
                    .baseUnit("seconds")
                    .register(registry);
        }
        if (allocationCounted) {
            FunctionCounter.builder("vtlab.scrape.allocated", allocatedBytes, LongAdder::sum)
                    .description("Bytes the service allocated on the heap writing its Prometheus scrapes")
                    .baseUnit("bytes")
                    .register(registry);
        }
        FunctionCounter.builder("vtlab.scrape", scrapes, LongAdder::sum)
                .description("Prometheus scrapes written, counted once each was")
                .register(registry);
    }

    private long cpuNow() {
        return cpuCounted ? threads.getCurrentThreadCpuTime() : -1;
    }

    private long bytesNow() {
        return allocationCounted ? threads.getCurrentThreadAllocatedBytes() : -1;
    }

    /** -1 before or after: this thread was not measured (a virtual thread, a counter switched off). */
    private static void add(LongAdder total, long before, long after) {
        if (before >= 0 && after >= before) {
            total.add(after - before);
        }
    }
}
