package dev.vtlab.fanout;

import java.util.concurrent.StructuredTaskScope;
import java.util.concurrent.StructuredTaskScope.Subtask;
import java.util.function.Supplier;

/**
 * The only class compiled against a preview API; {@link FanOut#structured()} loads it by name. Each
 * call runs on a virtual thread of its own (the scope's default), whatever thread the request is on;
 * the first failure cancels the others and is rethrown unwrapped.
 */
final class StructuredFanOut implements FanOut {

    @Override
    public <A, B, C> Results<A, B, C> all(Supplier<A> first, Supplier<B> second, Supplier<C> third)
            throws InterruptedException {
        try (var scope = StructuredTaskScope.open()) {
            Subtask<A> a = scope.fork(first::get);
            Subtask<B> b = scope.fork(second::get);
            Subtask<C> c = scope.fork(third::get);
            scope.join();
            return new Results<>(a.get(), b.get(), c.get());
        }
        catch (StructuredTaskScope.FailedException ex) {
            if (ex.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            if (ex.getCause() instanceof Error error) {
                throw error;
            }
            throw ex;
        }
    }

    @Override
    public String name() {
        return "structured";
    }
}
