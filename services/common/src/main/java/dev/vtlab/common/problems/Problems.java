package dev.vtlab.common.problems;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * RFC 9457 problem details as both services answer them: one title per failure and the same
 * Retry-After when load is shed, so a client (and the rig's error mix) cannot tell the app from its twin.
 */
public final class Problems {

    public static final String INVALID_ORDER_ID = "Invalid order id";
    public static final String ORDER_NOT_FOUND = "Order not found";
    public static final String DOWNSTREAM_UNAVAILABLE = "Downstream unavailable";
    public static final String DOWNSTREAM_TIMEOUT = "Downstream timeout";
    public static final String POOL_EXHAUSTED = "Database pool exhausted";
    public static final String DATABASE_ERROR = "Database error";
    public static final String INTERNAL_ERROR = "Internal error";

    /** The detail of a 503 for a pool that ran out: the same words from both services. */
    public static final String POOL_EXHAUSTED_DETAIL = "No database connection became free within the pool timeout";

    /** Seconds a client should wait after the service shed load: the wait it ran out of clears within the pool timeout. */
    public static final String RETRY_AFTER_SECONDS = "1";

    private Problems() {
    }

    public static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }

    /** Load the service sheds (503): a client may retry shortly. */
    public static ResponseEntity<ProblemDetail> serviceUnavailable(String title, String detail) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(problem(HttpStatus.SERVICE_UNAVAILABLE, title, detail));
    }
}
