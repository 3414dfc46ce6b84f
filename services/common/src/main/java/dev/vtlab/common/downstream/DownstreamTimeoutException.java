package dev.vtlab.common.downstream;

import dev.vtlab.common.problems.ProblemException;
import dev.vtlab.common.problems.Problems;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;

/** 504: the downstream service did not connect or answer in time. */
public class DownstreamTimeoutException extends ProblemException {

    public DownstreamTimeoutException(String message, @Nullable Throwable cause) {
        super(HttpStatus.GATEWAY_TIMEOUT, Problems.DOWNSTREAM_TIMEOUT, message, cause);
    }
}
