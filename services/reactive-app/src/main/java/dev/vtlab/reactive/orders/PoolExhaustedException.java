package dev.vtlab.reactive.orders;

import dev.vtlab.common.problems.ProblemException;
import dev.vtlab.common.problems.Problems;

import org.springframework.http.HttpStatus;

/** 503 with Retry-After: no database connection became free within the pool's acquire timeout. */
public class PoolExhaustedException extends ProblemException {

    public PoolExhaustedException(Throwable cause) {
        super(HttpStatus.SERVICE_UNAVAILABLE, Problems.POOL_EXHAUSTED, Problems.POOL_EXHAUSTED_DETAIL, cause);
        retryShortly();
    }
}
