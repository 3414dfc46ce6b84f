package dev.vtlab.app.context;

import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

import dev.vtlab.common.jdk25.Jdk25Parts;

/**
 * Per-request state of the kind real services carry (correlation id, caller identity, feature flags,
 * cached lookups), made deliberately sizeable by {@code payload} so that how it is held shows up in
 * memory and GC at tens of thousands of threads. Code reads it with {@link #current()}, never by
 * parameter: that is the whole point of a context.
 */
public record RequestContext(String requestId, byte[] payload) {

    private static final ThreadLocal<RequestContext> THREAD_LOCAL = new ThreadLocal<>();
    /**
     * The ScopedValue of CONTEXT_MODE=scopedvalue (module jdk25: final only in JDK 25), set once at start-up by
     * {@link #useScopedValue} and null otherwise, so a JDK 21 service never loads it.
     */
    private static volatile Jdk25Parts.ContextSlot<RequestContext> scoped;

    static RequestContext create(int kilobytes) {
        byte[] payload = new byte[kilobytes * 1024];
        // Filled, not left zeroed: the allocation is then really touched, as a real context's data would be.
        ThreadLocalRandom.current().nextBytes(payload);
        return new RequestContext(UUID.randomUUID().toString(), payload);
    }

    /** The context bound by whichever CONTEXT_MODE is on; empty with CONTEXT_MODE=none. */
    public static Optional<RequestContext> current() {
        Jdk25Parts.ContextSlot<RequestContext> slot = scoped;
        if (slot != null && slot.isBound()) {
            return Optional.of(slot.get());
        }
        return Optional.ofNullable(THREAD_LOCAL.get());
    }

    static ThreadLocal<RequestContext> threadLocal() {
        return THREAD_LOCAL;
    }

    @SuppressWarnings("unchecked")
    static synchronized Jdk25Parts.ContextSlot<RequestContext> useScopedValue() {
        if (scoped == null) {
            scoped = Jdk25Parts.load("dev.vtlab.jdk25.ScopedSlot", Jdk25Parts.ContextSlot.class, "CONTEXT_MODE",
                    "scopedvalue");
        }
        return scoped;
    }
}
