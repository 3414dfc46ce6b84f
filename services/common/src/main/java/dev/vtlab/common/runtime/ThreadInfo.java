package dev.vtlab.common.runtime;

/** The thread that served a request, as seen from inside it. */
public record ThreadInfo(String name, long id, boolean virtual) {

    public static ThreadInfo current() {
        Thread thread = Thread.currentThread();
        return new ThreadInfo(thread.getName(), thread.threadId(), thread.isVirtual());
    }
}
