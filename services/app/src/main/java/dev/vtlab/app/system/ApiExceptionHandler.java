package dev.vtlab.app.system;

import static dev.vtlab.common.problems.Problems.problem;
import static dev.vtlab.common.problems.Problems.serviceUnavailable;

import java.sql.SQLTransientConnectionException;

import dev.vtlab.common.downstream.DownstreamTimeoutException;
import dev.vtlab.common.downstream.DownstreamUnavailableException;
import dev.vtlab.app.orders.InvalidNewOrderException;
import dev.vtlab.app.orders.OffloadTimeoutException;
import dev.vtlab.common.orders.OrderNotFoundException;
import dev.vtlab.app.workloads.InvalidParameterException;
import dev.vtlab.common.InvalidOrderIdException;
import dev.vtlab.common.problems.Problems;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Maps failures to RFC 9457 problem details. Extending {@link ResponseEntityExceptionHandler} keeps
 * Spring's own mappings (unknown path → 404, bad method → 405, ...) as problem+json too. Details are
 * written for the client and never carry exception messages, which could leak hosts or SQL.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    @ExceptionHandler(InvalidOrderIdException.class)
    ProblemDetail invalidId(InvalidOrderIdException ex) {
        return problem(HttpStatus.BAD_REQUEST, Problems.INVALID_ORDER_ID, ex.getMessage());
    }

    @ExceptionHandler(InvalidNewOrderException.class)
    ProblemDetail invalidNewOrder(InvalidNewOrderException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid order", ex.getMessage());
    }

    @ExceptionHandler(InvalidParameterException.class)
    ProblemDetail invalidParameter(InvalidParameterException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid parameter", ex.getMessage());
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

    @ExceptionHandler(OffloadTimeoutException.class)
    ResponseEntity<ProblemDetail> offloadTimeout(OffloadTimeoutException ex) {
        return serviceUnavailable("Offload executor saturated", ex.getMessage());
    }

    // Pool exhaustion surfaces as CannotGetJdbcConnectionException (released mode) or
    // CannotCreateTransactionException (held mode); Hikari's exception is the cause in both.
    @ExceptionHandler({ DataAccessException.class, TransactionException.class })
    ResponseEntity<ProblemDetail> database(RuntimeException ex) {
        if (hasCause(ex, SQLTransientConnectionException.class)) {
            return serviceUnavailable(Problems.POOL_EXHAUSTED,
                    "No database connection became free within the pool timeout");
        }
        log.error("Database failure", ex);
        return ResponseEntity.internalServerError()
                .body(problem(HttpStatus.INTERNAL_SERVER_ERROR, Problems.DATABASE_ERROR, "The database query failed"));
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail unexpected(Exception ex) {
        log.error("Unhandled failure", ex);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, Problems.INTERNAL_ERROR, "The request could not be processed");
    }

    private static boolean hasCause(Throwable ex, Class<? extends Throwable> type) {
        for (Throwable t = ex; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
