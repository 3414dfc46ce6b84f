package dev.vtlab.stub.downstream;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import dev.vtlab.stub.system.StubSettings;
import reactor.core.publisher.Mono;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

@RestController
class DownstreamController {

    /** A fixed ~64-character payload so responses have a realistic, constant size. */
    static final String PAYLOAD = "vtlab-downstream-payload-0123456789abcdefghijklmnopqrstuvwxyzABCD";

    private final long delayMs;
    private final long jitterMs;

    DownstreamController(StubSettings settings) {
        this.delayMs = settings.delay().toMillis();
        this.jitterMs = settings.jitter().toMillis();
    }

    // Mono.delay schedules a timer and frees the event loop; a sleep here would make the stub the bottleneck.
    @GetMapping("/downstream/{id}")
    Mono<DownstreamAnswer> answer(@PathVariable("id") long id) {
        long delay = delayMs + (jitterMs == 0 ? 0 : ThreadLocalRandom.current().nextLong(jitterMs + 1));
        return Mono.delay(Duration.ofMillis(delay)).map(tick -> new DownstreamAnswer(id, "stub", delay, PAYLOAD));
    }

    record DownstreamAnswer(long id, String source, long delayMs, String payload) {
    }
}
