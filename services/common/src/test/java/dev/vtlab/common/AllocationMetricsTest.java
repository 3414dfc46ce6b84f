package dev.vtlab.common;

import java.util.ArrayList;
import java.util.List;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The allocation counter counts what threads allocate, virtual threads' and ended threads' bytes included. */
class AllocationMetricsTest {

    @Test
    void bytesAllocatedByAnEndedThreadAndAVirtualOneAreCounted() throws InterruptedException {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new AllocationMetrics().bindTo(registry);
        FunctionCounter allocated = registry.get("jvm.allocated").functionCounter();
        double before = allocated.count();

        List<byte[]> kept = new ArrayList<>();
        Runnable allocate = () -> {
            for (int i = 0; i < 32; i++) {
                kept.add(new byte[1 << 20]);  // 32 MiB, kept so no escape analysis removes it
            }
        };
        Thread.ofPlatform().start(allocate).join();  // a thread that ended: its bytes stay counted
        Thread.ofVirtual().start(allocate).join();   // a virtual thread: counted in its carrier's bytes

        assertThat(kept).hasSize(64);
        assertThat(allocated.count() - before).isGreaterThanOrEqualTo(64.0 * (1 << 20));
    }
}
