package dev.vtlab.common.jdk25;

import java.util.concurrent.Callable;
import java.util.function.Supplier;

import dev.vtlab.common.InvalidSettingException;

/**
 * The Java 21 face of the services' JDK-25-only parts (module jdk25, compiled with release 25).
 *
 * <p>The app compiles with release 21 so one jar runs on JDK 21 and 25; it reaches the newer parts only
 * through these interfaces and loads their classes by name, and only when a setting asks for one. On an
 * older JVM that load fails with {@link UnsupportedClassVersionError}, which {@link #load} turns into a
 * start-up error naming the setting, instead of a crash on the first request.
 */
public final class Jdk25Parts {

    /** Runs an action with a native frame on the stack (an FFM upcall): pins a virtual thread on any JDK. */
    public interface UnderNativeFrame {
        <T> T call(Supplier<T> action);
    }

    /** A per-request slot bound for the dynamic extent of a call (a ScopedValue, final in JDK 25). */
    public interface ContextSlot<T> {
        boolean isBound();

        T get();

        <R> R callWhere(T value, Callable<R> operation) throws Exception;
    }

    private Jdk25Parts() {
    }

    /**
     * An instance of {@code className} (public no-argument constructor) as {@code type}.
     *
     * @throws InvalidSettingException naming {@code variable} when this JVM is older than the class
     */
    public static <T> T load(String className, Class<T> type, String variable, String value) {
        try {
            return type.cast(Class.forName(className).getDeclaredConstructor().newInstance());
        }
        catch (UnsupportedClassVersionError ex) {
            throw new InvalidSettingException(variable, "something other than '%s' on JDK %d: it needs JDK 25"
                    .formatted(value, Runtime.version().feature()), value);
        }
        catch (ReflectiveOperationException ex) {
            throw new IllegalStateException(className + " could not be created", ex);
        }
    }
}
