package dev.vtlab.app.system;

import java.sql.SQLTransientConnectionException;

import dev.vtlab.app.downstream.DownstreamTimeoutException;
import dev.vtlab.app.downstream.DownstreamUnavailableException;
import dev.vtlab.app.orders.InvalidNewOrderException;
import dev.vtlab.app.orders.OffloadTimeoutException;
import dev.vtlab.app.orders.OrderNotFoundException;
import dev.vtlab.app.workloads.InvalidParameterException;
import dev.vtlab.common.InvalidOrderIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.http.HttpHeaders;
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

    /** Seconds a client should wait after pool exhaustion; load clears within the pool timeout. */
    private static final String RETRY_AFTER_SECONDS = "1";

    @ExceptionHandler(InvalidOrderIdException.class)
    ProblemDetail invalidId(InvalidOrderIdException ex) {
        return problem(HttpStatus.BAD_REQUEST, "Invalid order id", ex.getMessage());
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

    @ExceptionHandler(OffloadTimeoutException.class)
    ResponseEntity<ProblemDetail> offloadTimeout(OffloadTimeoutException ex) {
        return serviceUnavailable("Offload executor saturated", ex.getMessage());
    }

    // Pool exhaustion surfaces as CannotGetJdbcConnectionException (released mode) or
    // CannotCreateTransactionException (held mode); Hikari's exception is the cause in both.
    @ExceptionHandler({ DataAccessException.class, TransactionException.class })
    ResponseEntity<ProblemDetail> database(RuntimeException ex) {
        if (hasCause(ex, SQLTransientConnectionException.class)) {
            return serviceUnavailable("Database pool exhausted",
                    "No database connection became free within the pool timeout");
        }
        log.error("Database failure", ex);
        return ResponseEntity.internalServerError()
                .body(problem(HttpStatus.INTERNAL_SERVER_ERROR, "Database error", "The database query failed"));
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail unexpected(Exception ex) {
        log.error("Unhandled failure", ex);
        return problem(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error", "The request could not be processed");
    }

    /** Load the service sheds: a client may retry shortly, as the wait it ran out of clears quickly. */
    private static ResponseEntity<ProblemDetail> serviceUnavailable(String title, String detail) {
        return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
                .header(HttpHeaders.RETRY_AFTER, RETRY_AFTER_SECONDS)
                .body(problem(HttpStatus.SERVICE_UNAVAILABLE, title, detail));
    }

    private static ProblemDetail problem(HttpStatus status, String title, String detail) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
        problem.setTitle(title);
        return problem;
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
