// Why a Prometheus scrape allocates ~18 MiB on a virtual thread and ~0.1 MiB on a platform thread.
//
// A single-file program (JEP 330), outside vtlab: a PrometheusMeterRegistry with the meters a Spring Boot
// MVC service registers, scraped the way Boot 4.1's PrometheusScrapeEndpoint does, on a platform thread and on
// a fresh virtual thread (Tomcat's virtual-thread executor starts one a request), the bytes allocated per scrape
// counted exactly. See README.md beside this file for the classpath, the numbers and the cause.
//
//   java -cp "$CP" Repro.java           the table
//   java -cp "$CP" Repro.java jfr       and where the virtual thread's bytes go (JFR's TLAB events)

import com.sun.management.ThreadMXBean;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.io.OutputStreamWriter;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

public class Repro {
    static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    static final int SCRAPES = 40;

    static PrometheusRegistry registry;
    static final ExpositionFormats FORMATS = ExpositionFormats.init();
    static volatile int nextScrapeSize = 16;  // Boot's PrometheusScrapeEndpoint starts at 16 and learns the size
    static volatile int sink;

    public static void main(String[] args) throws Exception {
        registry = meters().getPrometheusRegistry();
        System.out.printf("JDK %s; scrape: %d bytes, %d metric families%n", Runtime.version(), scrape().length,
                registry.scrape().size());
        for (int i = 0; i < 200; i++) {  // compiled before anything is counted
            scrape();
            Thread.ofVirtual().start(Repro::scrape).join();
        }
        System.out.println("bytes allocated per scrape (mean of " + SCRAPES + "):");
        row("platform thread, its own counter", platform(THREADS::getCurrentThreadAllocatedBytes, Repro::scrape));
        row("platform thread, the JVM's total counter", platform(THREADS::getTotalThreadAllocatedBytes, Repro::scrape));
        row("virtual thread, the JVM's total counter", virtual(Repro::scrape));
        java.util.concurrent.ExecutorService platform = java.util.concurrent.Executors.newSingleThreadExecutor();
        row("virtual thread, the scrape handed to one platform thread (vtlab's cut)",
                virtual(() -> {
                    try {
                        platform.submit(Repro::scrape).get();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
        platform.shutdown();
        row("virtual thread that does nothing (the counter's floor)", virtual(() -> { }));
        row("virtual thread, BufferedWriter(w) alone, 60 KiB in 4-char writes", virtual(() -> writer(false)));
        row("virtual thread, BufferedWriter(w, 8192) alone, the same writes", virtual(() -> writer(true)));
        row("platform thread, BufferedWriter(w) alone, the same writes",
                platform(THREADS::getCurrentThreadAllocatedBytes, () -> writer(false)));
        if (args.length > 0 && args[0].equals("jfr")) {
            whereItGoes();
        }
    }

    // The meters of a Spring MVC service on Tomcat with HikariCP: Boot's JVM and system binders, the request
    // timers of four endpoints by status, and the pool's and the server's gauges and counters.
    static PrometheusMeterRegistry meters() {
        PrometheusMeterRegistry meters = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        new ClassLoaderMetrics().bindTo(meters);
        new JvmMemoryMetrics().bindTo(meters);
        new JvmGcMetrics().bindTo(meters);
        new JvmThreadMetrics().bindTo(meters);
        new JvmInfoMetrics().bindTo(meters);
        new ProcessorMetrics().bindTo(meters);
        new UptimeMetrics().bindTo(meters);
        AtomicInteger value = new AtomicInteger(7);
        for (String uri : new String[] {"/api/order-summary/{id}", "/api/runtime-info", "/actuator/prometheus", "/**"}) {
            for (String status : new String[] {"200", "404", "500"}) {
                Timer timer = Timer.builder("http.server.requests").tags("uri", uri, "status", status,
                        "method", "GET", "outcome", "SUCCESS", "exception", "none", "error", "none").register(meters);
                timer.record(Duration.ofMillis(12));
            }
        }
        for (String name : new String[] {"active", "idle", "pending", "max", "min", "connections"}) {
            Gauge.builder("hikaricp.connections." + name, value, AtomicInteger::get).tag("pool", "vtlab")
                    .register(meters);
        }
        Timer.builder("hikaricp.connections.acquire").tag("pool", "vtlab").register(meters).record(Duration.ofMillis(1));
        Timer.builder("hikaricp.connections.usage").tag("pool", "vtlab").register(meters).record(Duration.ofMillis(3));
        for (String name : new String[] {"tomcat.sessions.active.current", "tomcat.sessions.active.max",
                "tomcat.connections.current", "tomcat.connections.keepalive.current", "tomcat.threads.busy",
                "tomcat.threads.current", "tomcat.threads.config.max", "executor.active", "executor.pool.size",
                "executor.queued", "jvm.threads.virtual.live", "process.memory.rss", "jvm.allocated"}) {
            Gauge.builder(name, value, AtomicInteger::get).tag("name", "main").register(meters);
        }
        for (String level : new String[] {"trace", "debug", "info", "warn", "error"}) {
            Counter.builder("logback.events").tag("level", level).register(meters).increment();
        }
        return meters;
    }

    // Boot 4.1's PrometheusScrapeEndpoint.scrape, text format, without Spring around it.
    static byte[] scrape() {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(nextScrapeSize);
            FORMATS.getPrometheusTextFormatWriter().write(out, registry.scrape());
            byte[] content = out.toByteArray();
            nextScrapeSize = content.length + 1024;
            return content;
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    // What PrometheusTextFormatWriter.write does to its writer, without the Prometheus client: many short writes.
    static void writer(boolean sized) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream(64 * 1024);
            OutputStreamWriter encoder = new OutputStreamWriter(out, StandardCharsets.UTF_8);
            BufferedWriter writer = sized ? new BufferedWriter(encoder, 8192) : new BufferedWriter(encoder);
            for (int i = 0; i < 15_000; i++) {
                writer.write("abc ");
            }
            writer.flush();
            sink = out.size();
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static long platform(LongSupplier counter, Runnable work) {
        long before = counter.getAsLong();
        for (int i = 0; i < SCRAPES; i++) {
            work.run();
        }
        return (counter.getAsLong() - before) / SCRAPES;
    }

    // A virtual thread's bytes are not its own counter's (getCurrentThreadAllocatedBytes is -1 on one): they are
    // its carrier's, and the JVM's total counts every thread's TLAB bytes exactly, so with nothing else running
    // in this JVM the difference is the scrape's, plus the floor that an empty virtual thread shows.
    static long virtual(Runnable work) throws InterruptedException {
        long before = THREADS.getTotalThreadAllocatedBytes();
        for (int i = 0; i < SCRAPES; i++) {
            Thread.ofVirtual().start(work).join();
        }
        return (THREADS.getTotalThreadAllocatedBytes() - before) / SCRAPES;
    }

    static void row(String what, long bytes) {
        System.out.printf("  %-68s %,12d B  (%.2f MiB)%n", what, bytes, bytes / 1048576.0);
    }

    // JFR's TLAB events of the virtual-thread scrapes (a new TLAB weighs its size, an object outside one its
    // own: each event stands for the bytes since the last, as async-profiler's alloc mode counts them), summed by
    // the first frame outside java.util.Arrays: the code that asked for the bytes.
    static void whereItGoes() throws Exception {
        Path file = Path.of(System.getProperty("java.io.tmpdir"), "scrape-alloc.jfr");
        try (Recording recording = new Recording()) {
            recording.enable("jdk.ObjectAllocationInNewTLAB").withStackTrace();
            recording.enable("jdk.ObjectAllocationOutsideTLAB").withStackTrace();
            recording.start();
            virtual(Repro::scrape);
            recording.stop();
            recording.dump(file);
        }
        Map<String, Long> weights = new HashMap<>();
        long total = 0;
        for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
            if (event.getStackTrace() == null) {
                continue;
            }
            long weight = event.hasField("tlabSize") ? event.getLong("tlabSize") : event.getLong("allocationSize");
            total += weight;
            weights.merge(caller(event), weight, Long::sum);
        }
        System.out.printf("JFR TLAB events, %d virtual-thread scrapes, %.1f MiB a scrape; by caller:%n",
                SCRAPES, total / 1048576.0 / SCRAPES);
        long shown = total;
        weights.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(4)
                .forEach(e -> System.out.printf("  %5.1f%%  %s%n", 100.0 * e.getValue() / shown, e.getKey()));
    }

    static String caller(RecordedEvent event) {
        StringBuilder chain = new StringBuilder();
        int kept = 0;
        for (var frame : event.getStackTrace().getFrames()) {
            String name = frame.getMethod().getType().getName() + "." + frame.getMethod().getName();
            if (kept == 0 && name.startsWith("java.util.Arrays.")) {
                continue;
            }
            chain.append(kept == 0 ? "" : " <- ").append(name).append(':').append(frame.getLineNumber());
            if (++kept == 3) {
                break;
            }
        }
        return chain.toString();
    }
}
