package dev.vtlab.app.system;

import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.dao.DataAccessException;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.transaction.TransactionException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.reactive.result.method.annotation.ResponseEntityExceptionHandler;

/** ApiExceptionHandler's mapping on WebFlux (SERVER=netty): the same problems for the same failures. */
@RestControllerAdvice
@ConditionalOnWebApplication(type = Type.REACTIVE)
class ReactiveApiExceptionHandler extends ResponseEntityExceptionHandler {

    @ExceptionHandler({ DataAccessException.class, TransactionException.class })
    ResponseEntity<ProblemDetail> database(RuntimeException ex) {
        return LibraryFailures.database(ex);
    }

    @ExceptionHandler(Exception.class)
    ProblemDetail unexpected(Exception ex) {
        return LibraryFailures.unexpected(ex);
    }
}
