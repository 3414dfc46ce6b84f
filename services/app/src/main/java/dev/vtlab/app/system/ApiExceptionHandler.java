package dev.vtlab.app.system;

import static dev.vtlab.common.problems.Problems.problem;
import static dev.vtlab.common.problems.Problems.serviceUnavailable;

import java.sql.SQLTransientConnectionException;

import dev.vtlab.common.problems.ProblemException;
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
 * Spring's own mappings (unknown path → 404, bad method → 405, ...) as problem+json too, and answers
 * the app's own failures ({@link ProblemException}s: bad id, unknown order, downstream, offload, ...) with
 * the problem each carries. What is left here are the failures of libraries, which know nothing of
 * problems. Details are written for the client and never carry exception messages, which could leak
 * hosts or SQL.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

    // Pool exhaustion surfaces as CannotGetJdbcConnectionException (released mode) or
    // CannotCreateTransactionException (held mode); Hikari's exception is the cause in both.
    @ExceptionHandler({ DataAccessException.class, TransactionException.class })
    ResponseEntity<ProblemDetail> database(RuntimeException ex) {
        if (hasCause(ex, SQLTransientConnectionException.class)) {
            return serviceUnavailable(Problems.POOL_EXHAUSTED, Problems.POOL_EXHAUSTED_DETAIL);
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
