package dev.vtlab.fanout;

import java.util.function.Supplier;

/**
 * Runs three independent calls for one request and returns all three results, or the first failure
 * exactly as it was thrown (so an API maps it to the same status as on a single-call path).
 */
public interface FanOut {

    <A, B, C> Results<A, B, C> all(Supplier<A> first, Supplier<B> second, Supplier<C> third)
            throws InterruptedException;

    /** "sequential" or "structured": the value of the setting that chose this strategy. */
    String name();

    record Results<A, B, C>(A first, B second, C third) {
    }

    /** One call after the other: the request takes the sum of the three. */
    static FanOut sequential() {
        return new SequentialFanOut();
    }

    /**
     * All three at once in a StructuredTaskScope: the request takes the slowest of the three.
     *
     * @throws IllegalStateException when the JVM runs without --enable-preview (StructuredTaskScope is
     *         a preview API in JDK 25), so start-up can say which flag is missing
     */
    static FanOut structured() {
        try {
            // By name: loading the preview-marked class is what needs --enable-preview, and it must
            // not happen for a JVM that never asked for the structured strategy.
            return (FanOut) Class.forName("dev.vtlab.fanout.StructuredFanOut").getDeclaredConstructor().newInstance();
        }
        catch (UnsupportedClassVersionError ex) {
            throw new IllegalStateException("the structured fan-out uses StructuredTaskScope, a preview API in "
                    + "JDK " + Runtime.version().feature() + ": start the JVM with --enable-preview", ex);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException("dev.vtlab.fanout.StructuredFanOut could not be created", ex);
        }
    }
}
