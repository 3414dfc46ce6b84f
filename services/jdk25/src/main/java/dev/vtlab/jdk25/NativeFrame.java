package dev.vtlab.jdk25;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.function.Supplier;

import dev.vtlab.common.jdk25.Jdk25Parts;

/**
 * Runs a blocking action with a native frame on the stack: the pinning case JEP 491 did not remove.
 *
 * <p>The action runs inside an upcall from libc's {@code qsort}, which calls our comparator while
 * sorting two elements. A virtual thread that blocks there cannot unmount, so it pins its carrier and
 * JFR records {@code jdk.VirtualThreadPinned}. This is the rig's positive control: if the recording
 * shows no pinning on this path, the capture is broken, not the JDK fixed. FFM is final from JDK 22:
 * this class lives in module jdk25 and is loaded by name (see {@link Jdk25Parts#load}).
 */
public final class NativeFrame implements Jdk25Parts.UnderNativeFrame {

    private static final MethodHandle QSORT;
    private static final MemorySegment COMPARATOR;

    /** The action of the current call; the upcall has no other way to reach it. */
    private static final ThreadLocal<Call<?>> CURRENT = new ThreadLocal<>();

    static {
        Linker linker = Linker.nativeLinker();
        QSORT = linker.downcallHandle(
                linker.defaultLookup().find("qsort").orElseThrow(() -> new IllegalStateException("libc has no qsort")),
                FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                        ValueLayout.ADDRESS));
        try {
            MethodHandle compare = MethodHandles.lookup().findStatic(NativeFrame.class, "compare",
                    MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
            COMPARATOR = linker.upcallStub(compare,
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS),
                    Arena.global());
        }
        catch (ReflectiveOperationException ex) {
            throw new ExceptionInInitializerError(ex);
        }
    }

    /** For {@link Jdk25Parts#load}: the state is static, one upcall stub per JVM. */
    public NativeFrame() {
    }

    @Override
    public <T> T call(Supplier<T> action) {
        Call<T> call = new Call<>(action);
        CURRENT.set(call);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment two = arena.allocate(ValueLayout.JAVA_INT, 2);
            QSORT.invokeExact(two, 2L, ValueLayout.JAVA_INT.byteSize(), COMPARATOR);
        }
        catch (RuntimeException | Error ex) {
            throw ex;
        }
        catch (Throwable ex) {
            throw new IllegalStateException("qsort failed", ex);
        }
        finally {
            CURRENT.remove();
        }
        return call.result();
    }

    /**
     * The upcall. An exception escaping an upcall kills the JVM, so every outcome is caught here and
     * handed back to {@link #call} once qsort has returned.
     */
    private static int compare(MemorySegment a, MemorySegment b) {
        Call<?> call = CURRENT.get();
        if (call != null) {
            call.runOnce();
        }
        return 0;
    }

    private static final class Call<T> {

        private final Supplier<T> action;
        private boolean ran;
        private T value;
        private RuntimeException failure;

        Call(Supplier<T> action) {
            this.action = action;
        }

        void runOnce() {
            if (ran) {
                return; // qsort may compare more than once; the action must run exactly once
            }
            ran = true;
            try {
                value = action.get();
            }
            catch (RuntimeException ex) {
                failure = ex;
            }
            catch (Throwable ex) {
                failure = new IllegalStateException("action failed inside the native frame", ex);
            }
        }

        T result() {
            if (!ran) {
                throw new IllegalStateException("qsort never called the comparator");
            }
            if (failure != null) {
                throw failure;
            }
            return value;
        }
    }
}
