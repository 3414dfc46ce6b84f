package dev.vtlab.reactive.system;

import static dev.vtlab.common.problems.Problems.problem;
import static dev.vtlab.common.problems.Problems.serviceUnavailable;

import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.downstream.DownstreamTimeoutException;
import dev.vtlab.common.downstream.DownstreamUnavailableException;
import dev.vtlab.common.orders.OrderNotFoundException;
import dev.vtlab.common.problems.Problems;
import dev.vtlab.reactive.orders.PoolExhaustedException;
import io.r2dbc.spi.R2dbcException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

    @ExceptionHandler(InvalidOrderIdException.class)
    ProblemDetail invalidId(InvalidOrderIdException ex) {
        return problem(HttpStatus.BAD_REQUEST, Problems.INVALID_ORDER_ID, ex.getMessage());
    }

    @ExceptionHandler(OrderNotFoundException.class)
    ProblemDetail notFound(OrderNotFoundException ex) {
        return problem(HttpStatus.NOT_FOUND, Problems.ORDER_NOT_FOUND, ex.getMessage());
    }

    @ExceptionHandler(DownstreamUnavailableException.class)
    ProblemDetail downstreamUnavailable(DownstreamUnavailableException ex) {
        return problem(HttpStatus.BAD_GATEWAY, Problems.DOWNSTREAM_UNAVAILABLE, ex.getMessage());
    }

    @ExceptionHandler(DownstreamTimeoutException.class)
    ProblemDetail downstreamTimeout(DownstreamTimeoutException ex) {
        return problem(HttpStatus.GATEWAY_TIMEOUT, Problems.DOWNSTREAM_TIMEOUT, ex.getMessage());
    }

    /** Load the service sheds: a client may retry shortly, as the wait it ran out of clears quickly. */
    @ExceptionHandler(PoolExhaustedException.class)
    ResponseEntity<ProblemDetail> poolExhausted(PoolExhaustedException ex) {
        return serviceUnavailable(Problems.POOL_EXHAUSTED, ex.getMessage());
    }

    @ExceptionHandler(R2dbcException.class)
    ProblemDetail database(R2dbcException ex) {
        log.error("Database failure", ex);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, Problems.DATABASE_ERROR, "The database query failed");
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail unexpected(Exception ex) {
        log.error("Unhandled failure", ex);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, Problems.INTERNAL_ERROR, "The request could not be processed");
    }
}
