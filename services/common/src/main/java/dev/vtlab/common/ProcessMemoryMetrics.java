package dev.vtlab.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * {@code process.memory.rss}: resident set size of the whole JVM process. Heap gauges miss thread
 * stacks, metaspace and direct buffers, which is exactly where thousands of platform threads cost.
 * Linux only: the gauge is simply absent where /proc/self/status does not exist.
 */
public class ProcessMemoryMetrics implements MeterBinder {

    private static final Path STATUS = Path.of("/proc/self/status");

    @Override
    public void bindTo(MeterRegistry registry) {
        if (readRssBytes() < 0) {
            return;
        }
        Gauge.builder("process.memory.rss", ProcessMemoryMetrics::readRssBytes)
                .description("Resident set size of the process (VmRSS)")
                .baseUnit("bytes")
                .register(registry);
    }

    static double readRssBytes() {
        try {
            for (String line : Files.readAllLines(STATUS)) {
                if (line.startsWith("VmRSS:")) {
                    // Format: "VmRSS:	  123456 kB"
                    String[] parts = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(parts[0]) * 1024d;
                }
            }
        }
        catch (IOException | RuntimeException ex) {
            // Not Linux, or /proc is not mounted: report nothing rather than a wrong number.
        }
        return -1;
    }
}
