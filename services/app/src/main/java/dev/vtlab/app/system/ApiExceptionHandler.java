package dev.vtlab.app.system;

import dev.vtlab.common.problems.ProblemException;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.dao.DataAccessException;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Maps failures to RFC 9457 problem details on the servlet stack (Tomcat, Jetty). Extending
 * {@link ResponseEntityExceptionHandler} keeps Spring's own mappings (unknown path → 404, bad method → 405, ...) as
 * problem+json too, and answers the app's own failures ({@link ProblemException}s: bad id, unknown order, downstream,
 * offload, ...) with the problem each carries. What is left here are the failures of libraries
 * ({@link LibraryFailures}).
 */
@RestControllerAdvice
@ConditionalOnWebApplication(type = Type.SERVLET)
class ApiExceptionHandler extends ResponseEntityExceptionHandler {

    @ExceptionHandler({ DataAccessException.class, TransactionException.class })
    ResponseEntity<ProblemDetail> database(RuntimeException ex) {
        return LibraryFailures.database(ex);
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail unexpected(Exception ex) {
        return LibraryFailures.unexpected(ex);
    }
}
