package dev.vtlab.reactive.system;

import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.reactive.downstream.DownstreamTimeoutException;
import dev.vtlab.reactive.downstream.DownstreamUnavailableException;
import dev.vtlab.reactive.orders.OrderNotFoundException;
import dev.vtlab.reactive.orders.PoolExhaustedException;
import io.r2dbc.spi.R2dbcException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;

/**
 * The app's RFC 9457 mapping, status for status and title for title. Extending WebFlux's
 * {@link ResponseEntityExceptionHandler} keeps Spring's own mappings (405, 406, ...) as problem+json too.
 * Details are written for the client and never carry exception messages, which could leak hosts or SQL.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    /** Seconds a client should wait after pool exhaustion; load clears within the pool timeout. */
    private static final String RETRY_AFTER_SECONDS = "1";

    @ExceptionHandler(InvalidOrderIdException.class)
    ProblemDetail invalidId(InvalidOrderIdException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid order id", ex.getMessage());
    }

    @ExceptionHandler(OrderNotFoundException.class)
    ProblemDetail notFound(OrderNotFoundException ex) {
        return problem(HttpStatus.NOT_FOUND, "Order not found", ex.getMessage());
    }

    @ExceptionHandler(DownstreamUnavailableException.class)
    ProblemDetail downstreamUnavailable(DownstreamUnavailableException ex) {
        return problem(HttpStatus.BAD_GATEWAY, "Downstream unavailable", ex.getMessage());
    }

    @ExceptionHandler(DownstreamTimeoutException.class)
    ProblemDetail downstreamTimeout(DownstreamTimeoutException ex) {
        return problem(HttpStatus.GATEWAY_TIMEOUT, "Downstream timeout", ex.getMessage());
    }

    /** Load the service sheds: a client may retry shortly, as the wait it ran out of clears quickly. */
    @ExceptionHandler(PoolExhaustedException.class)
    ResponseEntity<ProblemDetail> poolExhausted(PoolExhaustedException ex) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(problem(HttpStatus.SERVICE_UNAVAILABLE, "Database pool exhausted", ex.getMessage()));
    }

    @ExceptionHandler(R2dbcException.class)
    ProblemDetail database(R2dbcException ex) {
        log.error("Database failure", ex);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Database error", "The database query failed");
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail unexpected(Exception ex) {
        log.error("Unhandled failure", ex);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error", "The request could not be processed");
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
    }
}
