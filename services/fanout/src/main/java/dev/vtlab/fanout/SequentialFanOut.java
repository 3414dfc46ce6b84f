package dev.vtlab.fanout;

import java.util.function.Supplier;

final class SequentialFanOut implements FanOut {

    @Override
    public <A, B, C> Results<A, B, C> all(Supplier<A> first, Supplier<B> second, Supplier<C> third) {
        A a = first.get();
        B b = second.get();
        return new Results<>(a, b, third.get());
    }

    @Override
    public String name() {
        return "sequential";
    }
}
