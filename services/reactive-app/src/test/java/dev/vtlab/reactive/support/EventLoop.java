package dev.vtlab.reactive.support;

public final class EventLoop {

    /** Reactor Netty's loop threads: "reactor-http-epoll-3" in the jar, a per-context prefix under tests. */
    public static final String THREAD_NAME = ".+-http-(epoll|nio|io_uring|kqueue)-\\d+";

    private EventLoop() {
    }
}
