package dev.vtlab.jdk25;

import java.util.concurrent.Callable;

import dev.vtlab.common.jdk25.Jdk25Parts;

/** CONTEXT_MODE=scopedvalue: a ScopedValue (final in JDK 25, JEP 506), bound for one request's handler. */
public final class ScopedSlot<T> implements Jdk25Parts.ContextSlot<T> {

    private final ScopedValue<T> value = ScopedValue.newInstance();

    @Override
    public boolean isBound() {
        return value.isBound();
    }

    @Override
    public T get() {
        return value.get();
    }

    @Override
    public <R> R callWhere(T bound, Callable<R> operation) throws Exception {
        return ScopedValue.where(value, bound).call(operation::call);
    }
}
