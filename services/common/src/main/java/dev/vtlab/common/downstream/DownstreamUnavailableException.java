package dev.vtlab.common.downstream;

import dev.vtlab.common.problems.ProblemException;
import dev.vtlab.common.problems.Problems;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;

/** 502: the downstream service could not be reached or gave an unusable answer. */
public class DownstreamUnavailableException extends ProblemException {

    public DownstreamUnavailableException(String message, @Nullable Throwable cause) {
        super(HttpStatus.BAD_GATEWAY, Problems.DOWNSTREAM_UNAVAILABLE, message, cause);
    }
}
