package dev.vtlab.app.context;

import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Per-request state of the kind real services carry (correlation id, caller identity, feature flags,
 * cached lookups), made deliberately sizeable by {@code payload} so that how it is held shows up in
 * memory and GC at tens of thousands of threads. Code reads it with {@link #current()}, never by
 * parameter: that is the whole point of a context.
 */
public record RequestContext(String requestId, byte[] payload) {

    private static final ThreadLocal<RequestContext> THREAD_LOCAL = new ThreadLocal<>();
    private static final ScopedValue<RequestContext> SCOPED = ScopedValue.newInstance();

    static RequestContext create(int kilobytes) {
        byte[] payload = new byte[kilobytes * 1024];
        // Filled, not left zeroed: the allocation is then really touched, as a real context's data would be.
        ThreadLocalRandom.current().nextBytes(payload);
        return new RequestContext(UUID.randomUUID().toString(), payload);
    }

    /** The context bound by whichever CONTEXT_MODE is on; empty with CONTEXT_MODE=none. */
    public static Optional<RequestContext> current() {
        if (SCOPED.isBound()) {
            return Optional.of(SCOPED.get());
        }
        return Optional.ofNullable(THREAD_LOCAL.get());
    }

    static ThreadLocal<RequestContext> threadLocal() {
        return THREAD_LOCAL;
    }

    static ScopedValue<RequestContext> scoped() {
        return SCOPED;
    }
}
