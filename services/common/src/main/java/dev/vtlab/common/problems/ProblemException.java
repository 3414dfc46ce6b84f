package dev.vtlab.common.problems;

import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.web.ErrorResponseException;

/**
 * A failure that carries its own RFC 9457 answer: status, title, detail and headers. Spring MVC's and
 * WebFlux's ResponseEntityExceptionHandler write an {@link ErrorResponseException} as it is, so neither
 * service's exception handler needs to know the feature that threw it.
 *
 * <p>The detail is written for the client and is also the exception's message, as it was before these
 * exceptions answered for themselves (ErrorResponseException's own message is its status and body).
 */
public class ProblemException extends ErrorResponseException {

    public ProblemException(HttpStatus status, String title, String detail, @Nullable Throwable cause) {
        super(status, Problems.problem(status, title, detail), cause);
    }

    /**
     * For load the service sheds (503): a client may retry after {@link Problems#RETRY_AFTER_SECONDS}, as the
     * wait it ran out of clears within the pool's timeout ({@link Problems#serviceUnavailable} for a handler's own).
     */
    protected final void retryShortly() {
        getHeaders().set(HttpHeaders.RETRY_AFTER, Problems.RETRY_AFTER_SECONDS);
    }

    @Override
    public String getMessage() {
        return getBody().getDetail();
    }
}
