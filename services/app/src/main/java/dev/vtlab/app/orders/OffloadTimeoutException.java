package dev.vtlab.app.orders;

import dev.vtlab.common.problems.ProblemException;

import org.springframework.http.HttpStatus;

/** 503 with Retry-After: the offloaded work did not finish in time, most likely queued behind a full pool. */
public class OffloadTimeoutException extends ProblemException {

    OffloadTimeoutException(long seconds) {
        super(HttpStatus.SERVICE_UNAVAILABLE, "Offload executor saturated",
                "The offload executor did not finish the request within " + seconds + " s", null);
        retryShortly();
    }
}
