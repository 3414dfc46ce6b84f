package dev.vtlab.app.system;

import static dev.vtlab.common.problems.Problems.problem;
import static dev.vtlab.common.problems.Problems.serviceUnavailable;

import java.sql.SQLTransientConnectionException;

import dev.vtlab.common.problems.Problems;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/**
 * The problems for failures of libraries, which know nothing of problems: one mapping for both web stacks
 * (ApiExceptionHandler on the servlet stack, ReactiveApiExceptionHandler on WebFlux). Details are written for the
 * client and never carry exception messages, which could leak hosts or SQL.
 */
final class LibraryFailures {

    private static final Logger log = LoggerFactory.getLogger(LibraryFailures.class);

    private LibraryFailures() {
    }

    // Pool exhaustion surfaces as CannotGetJdbcConnectionException (released mode) or
    // CannotCreateTransactionException (held mode); Hikari's exception is the cause in both.
    static ResponseEntity<ProblemDetail> database(RuntimeException ex) {
        if (hasCause(ex, SQLTransientConnectionException.class)) {
            return serviceUnavailable(Problems.POOL_EXHAUSTED, Problems.POOL_EXHAUSTED_DETAIL);
        }
        log.error("Database failure", ex);
        return ResponseEntity.internalServerError()
                .body(problem(HttpStatus.INTERNAL_SERVER_ERROR, Problems.DATABASE_ERROR, "The database query failed"));
    }

    static ProblemDetail unexpected(Exception ex) {
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
