package dev.vtlab.reactive.system;

import static dev.vtlab.common.problems.Problems.problem;

import dev.vtlab.common.problems.ProblemException;
import dev.vtlab.common.problems.Problems;
import io.r2dbc.spi.R2dbcException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;

/**
 * The app's RFC 9457 mapping, status for status and title for title. Extending WebFlux's
 * {@link ResponseEntityExceptionHandler} keeps Spring's own mappings (405, 406, ...) as problem+json too, and
 * answers the twin's own failures ({@link ProblemException}s: bad id, unknown order, downstream, pool
 * exhausted) with the problem each carries. What is left here are the failures of libraries. Details are
 * written for the client and never carry exception messages, which could leak hosts or SQL.
 */
@RestControllerAdvice
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ApiExceptionHandler.class);

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
