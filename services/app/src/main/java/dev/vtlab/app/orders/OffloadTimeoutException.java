package dev.vtlab.app.orders;

/** Mapped to 503: the offloaded work did not finish in time, most likely queued behind a full pool. */
public class OffloadTimeoutException extends RuntimeException {

    OffloadTimeoutException(long seconds) {
        super("The offload executor did not finish the request within " + seconds + " s");
    }
}
